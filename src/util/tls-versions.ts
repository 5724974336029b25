/**
 * TLS versions by their exporter-toolkit names (web config, `upstream.tls`), as Node spells them:
 * one table for the server's TLS and the upstream client's, oldest first.
 */
export const TLS_VERSIONS = { TLS10: 'TLSv1', TLS11: 'TLSv1.1', TLS12: 'TLSv1.2', TLS13: 'TLSv1.3' } as const;

/** An exporter-toolkit TLS version name. */
export type TlsVersionName = keyof typeof TLS_VERSIONS;

/** The version names, oldest first, for a zod enum. */
export const TLS_VERSION_NAMES = Object.keys(TLS_VERSIONS) as [TlsVersionName, ...TlsVersionName[]];
