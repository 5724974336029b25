/** Reads a web config and its files: a bad certificate is an error with a path, not a failed handshake. */

import { createHash } from 'node:crypto';
import { dirname, isAbsolute, resolve } from 'node:path';
import { createSecureContext } from 'node:tls';
import { configErrorMap, flattenIssues, formatIssue } from '../../config/issues.ts';
import { CONFIG_MAX_ALIASES } from '../../config/load.ts';
import { parseYamlMapping, readErrorText } from '../../config/read-errors.ts';
import { RegularFileReader } from '../../util/read-file.ts';
import { maskCredentialLike } from '../../util/redact.ts';
import { TLS_VERSIONS } from '../../util/tls-versions.ts';
import { dummyHashFor } from './auth.ts';
import { type ClientAuthType, type TlsSection, webConfigSchema } from './schema.ts';

/** 1 MiB: a web config, a certificate chain or a CA bundle is a few kilobytes. */
const WEB_CONFIG_FILE_MAX_BYTES = 1024 * 1024;
/** How long reading one file may take before it counts as unreadable. */
const WEB_CONFIG_FILE_TIMEOUT_MS = 5000;

/** Reads a whole file; injected in tests. */
export type FileReader = (path: string) => Promise<Buffer>;

/** Regular files only, 1 MiB at most; one per watcher, so a hung open is not retried per re-read. */
export function webConfigFileReader(): FileReader {
  const reader = new RegularFileReader({
    maxBytes: WEB_CONFIG_FILE_MAX_BYTES,
    timeoutMs: WEB_CONFIG_FILE_TIMEOUT_MS,
  });
  return (path) => reader.read(path);
}

/** The TLS material and policy, ready for `tls.createServer` / `setSecureContext`. */
export interface TlsSettings {
  readonly cert: Buffer;
  readonly key: Buffer;
  readonly ca: Buffer | undefined;
  readonly minVersion: (typeof TLS_VERSIONS)[keyof typeof TLS_VERSIONS];
  readonly maxVersion: (typeof TLS_VERSIONS)[keyof typeof TLS_VERSIONS];
  readonly clientAuth: ClientAuthType;
}

/** A loaded web config: what the HTTP server applies to every connection and request. */
export interface WebConfig {
  readonly tls: TlsSettings | undefined;
  /** User name to bcrypt hash. Empty: no authentication. */
  readonly users: ReadonlyMap<string, string>;
  /** The hash an unknown user is checked against (see {@link dummyHashFor}). */
  readonly dummyHash: string;
  /** Token bucket: one token per `intervalMs`, at most `burst`; undefined: no limit. */
  readonly rateLimit: { readonly intervalMs: number; readonly burst: number } | undefined;
  readonly headers: Readonly<Record<string, string>>;
  /** Hash of the file and of every file it names: equal hashes mean nothing changed. */
  readonly fingerprint: string;
}

/** A web config that cannot be used; `issues` are `path: message` lines. */
export class WebConfigError extends Error {
  readonly issues: readonly string[];

  constructor(source: string, issues: readonly string[]) {
    // A password in the wrong place is masked, as in config errors.
    const masked = issues.map(maskCredentialLike);
    super(`invalid web config in ${maskCredentialLike(source)}:\n  ${masked.join('\n  ')}`);
    this.name = 'WebConfigError';
    this.issues = masked;
  }
}

/** Reads and validates `path` and every file it names; rejects with {@link WebConfigError}. */
export async function loadWebConfig(
  path: string,
  read: FileReader = webConfigFileReader(),
): Promise<WebConfig> {
  let text: Buffer;
  try {
    text = await read(path);
  } catch (err) {
    throw new WebConfigError(path, [`cannot read web config file: ${readErrorText(err)}`]);
  }
  const data = parseWebConfig(text.toString('utf8'), path);
  const baseDir = dirname(resolve(path));
  const hash = createHash('sha256').update(text);
  const tls =
    data.tls_server_config && (await readTls(data.tls_server_config, { baseDir, read, hash, source: path }));
  const rate = data.rate_limit;
  const users = new Map(Object.entries(data.basic_auth_users));
  return {
    tls,
    users,
    dummyHash: dummyHashFor(users.values()),
    rateLimit: rate && rate.interval > 0 ? { intervalMs: rate.interval, burst: rate.burst } : undefined,
    headers: data.http_server_config.headers,
    fingerprint: hash.digest('hex'),
  };
}

function parseWebConfig(text: string, source: string) {
  const tree = parseYamlMapping(
    text,
    { maxBytes: WEB_CONFIG_FILE_MAX_BYTES, maxAliases: CONFIG_MAX_ALIASES },
    {
      what: 'the file',
      // Unlike exporter-toolkit: an empty read is more often a file caught mid-write or a truncated
      // mount, and taken as valid it would switch basic auth off with no one noticing.
      empty:
        'the file is empty (or only comments); an empty web config would turn TLS and basic auth off. ' +
        'Leave out --web.config.file to serve without one',
      notMapping: 'the top level must be a mapping of keys to values',
    },
  );
  if ('issues' in tree) throw new WebConfigError(source, tree.issues);
  const parsed = webConfigSchema.safeParse(tree.value, { error: configErrorMap });
  if (!parsed.success) throw new WebConfigError(source, flattenIssues(parsed.error.issues).map(formatIssue));
  return parsed.data;
}

async function readTls(
  tls: TlsSection,
  files: {
    readonly baseDir: string;
    readonly read: FileReader;
    readonly hash: ReturnType<typeof createHash>;
    readonly source: string;
  },
): Promise<TlsSettings> {
  const { baseDir, read, hash, source } = files;
  const issues: string[] = [];
  const file = async (key: string, name: string | undefined): Promise<Buffer | undefined> => {
    if (name === undefined) return undefined;
    const path = isAbsolute(name) ? name : resolve(baseDir, name);
    try {
      const content = await read(path);
      hash.update(`\0${key}\0`).update(content);
      return content;
    } catch (err) {
      issues.push(`tls_server_config.${key}: cannot read ${path}: ${readErrorText(err)}`);
      return undefined;
    }
  };
  // One after the other, so that the fingerprint hashes them in a fixed order.
  const cert = await file('cert_file', tls.cert_file);
  const key = await file('key_file', tls.key_file);
  const ca = await file('client_ca_file', tls.client_ca_file);
  if (issues.length > 0 || cert === undefined || key === undefined) throw new WebConfigError(source, issues);
  const settings: TlsSettings = {
    cert,
    key,
    ca,
    minVersion: TLS_VERSIONS[tls.min_version],
    maxVersion: TLS_VERSIONS[tls.max_version],
    clientAuth: tls.client_auth_type,
  };
  checkTlsMaterial(settings, source);
  return settings;
}

/** Builds a secure context once, so that a key that does not match its certificate fails here. */
function checkTlsMaterial(tls: TlsSettings, source: string): void {
  const check = (where: string, material: { cert?: Buffer; key?: Buffer; ca?: Buffer }) => {
    try {
      createSecureContext(material);
    } catch (err) {
      throw new WebConfigError(source, [`tls_server_config${where}: ${opensslReason(err)}`]);
    }
  };
  check(': cert_file and key_file', { cert: tls.cert, key: tls.key });
  if (tls.ca === undefined) return;
  check('.client_ca_file', { ca: tls.ca });
  if (!tls.ca.toString('latin1').includes('-----BEGIN CERTIFICATE-----')) {
    throw new WebConfigError(source, ['tls_server_config.client_ca_file: holds no PEM certificate']);
  }
}

// OpenSSL's reason, without anything read from the file (a key must never reach a log line).
function opensslReason(err: unknown): string {
  const e = err as { reason?: string; code?: string; message?: string };
  return e.reason ?? e.code ?? 'not a valid PEM certificate and matching private key';
}
