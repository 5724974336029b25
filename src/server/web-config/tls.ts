/** Applies `tls_server_config` to a Node HTTPS server, and the client-certificate policies Node lacks. */
import type { Server as HttpsServer } from 'node:https';
import type { TLSSocket } from 'node:tls';
import type { TlsSettings } from './load.ts';
import type { ClientAuthType } from './schema.ts';

/** Options for `https.createServer`, from the loaded TLS settings. */
export function tlsServerOptions(tls: TlsSettings) {
  return {
    cert: tls.cert,
    key: tls.key,
    ca: tls.ca,
    minVersion: tls.minVersion,
    maxVersion: tls.maxVersion,
    requestCert: tls.clientAuth !== 'NoClientCert',
    // Only this policy can be left to OpenSSL; the others are checked per request by clientCertAllowed.
    rejectUnauthorized: tls.clientAuth === 'RequireAndVerifyClientCert',
  };
}

/** Swaps certificate, key, CA and policy for new connections, as exporter-toolkit does. */
export function applyTls(server: HttpsServer, tls: TlsSettings): void {
  const opts = tlsServerOptions(tls);
  server.setSecureContext(opts);
  // Read by Node for each new connection.
  const s = server as unknown as { requestCert: boolean; rejectUnauthorized: boolean };
  s.requestCert = opts.requestCert;
  s.rejectUnauthorized = opts.rejectUnauthorized;
}

/** Whether the request's connection satisfies the client-certificate policy. */
export function clientCertAllowed(socket: TLSSocket, policy: ClientAuthType): boolean {
  if (policy === 'NoClientCert' || policy === 'RequestClientCert') return true;
  const presented = Object.keys(socket.getPeerCertificate() ?? {}).length > 0;
  if (policy === 'RequireAnyClientCert') return presented;
  if (policy === 'VerifyClientCertIfGiven') return !presented || socket.authorized;
  return presented && socket.authorized;
}
