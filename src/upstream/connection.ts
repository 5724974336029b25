/**
 * The undici dispatcher with Prometheus's HTTP client settings (`tls_config`, proxies,
 * `follow_redirects`). TLS files are read again when they change, so that a renewed certificate
 * takes effect without a restart, as the token file does.
 */
import { createSecureContext } from 'node:tls';
import type { Dispatcher } from 'undici';
import { FileReadError, RegularFileReader, statWithin } from '../util/read-file.ts';
import { TLS_VERSIONS, type TlsVersionName } from '../util/tls-versions.ts';

/** `tls_config`, with file paths absolute. */
interface UpstreamTlsSettings {
  readonly caFile: string | undefined;
  readonly certFile: string | undefined;
  readonly keyFile: string | undefined;
  /** Name checked against the certificate and sent as SNI; default the host of `base_url`. */
  readonly serverName: string | undefined;
  readonly insecureSkipVerify: boolean;
  readonly minVersion: TlsVersionName;
  readonly maxVersion: TlsVersionName | undefined;
}

/** Which proxy requests go through. */
export type ProxySettings =
  | { readonly kind: 'none' }
  | { readonly kind: 'url'; readonly url: string; readonly noProxy: string | undefined }
  | { readonly kind: 'environment' };

/** Everything about the connection to the upstream that is not the request itself. */
export interface ConnectionSettings {
  readonly tls: UpstreamTlsSettings;
  readonly proxy: ProxySettings;
  /** Headers sent to the proxy with each CONNECT, each with all its values. */
  readonly proxyConnectHeader: Readonly<Record<string, readonly string[]>>;
  /** Redirects are followed (at most {@link MAX_REDIRECTS}); one to another origin drops the token. */
  readonly followRedirects: boolean;
}

/** The settings of an upstream without any of them: direct, system CAs, redirects followed. */
export const DEFAULT_CONNECTION: ConnectionSettings = {
  tls: {
    caFile: undefined,
    certFile: undefined,
    keyFile: undefined,
    serverName: undefined,
    insecureSkipVerify: false,
    minVersion: 'TLS12',
    maxVersion: undefined,
  },
  proxy: { kind: 'none' },
  proxyConnectHeader: {},
  followRedirects: true,
};

/**
 * undici, imported with the first dispatcher: checking a config reads TLS files through this module
 * but never connects, and importing undici costs more than the check.
 */
type Undici = typeof import('undici');
// A bundle's chunk of undici (CommonJS) holds only `default`, the whole module; Node's loader both.
const loadUndici = async (): Promise<Undici> => {
  const m: Undici & { readonly default?: Undici } = await import('undici');
  return m.default ?? m;
};

/** As Go's HTTP client, which Prometheus uses. */
const MAX_REDIRECTS = 10;

/** 1 MiB: a certificate chain, a key or a CA bundle is a few kilobytes. */
export const TLS_FILE_MAX_BYTES = 1024 * 1024;
/** How long reading one TLS file may take before it counts as unreadable (a hung mount). */
const TLS_FILE_TIMEOUT_MS = 5_000;

/** The contents of the TLS files. */
export interface TlsMaterial {
  readonly ca: Buffer | undefined;
  readonly cert: Buffer | undefined;
  readonly key: Buffer | undefined;
}

/** What is wrong with one TLS file (or pair), by its `tls_config` key. */
export interface TlsProblem {
  readonly field: 'ca_file' | 'cert_file' | 'key_file';
  readonly problem: string;
}

/**
 * What keeps the material from making a TLS context (a CA file without a certificate, a key that
 * does not match). Never quotes the files: a key must never reach a log line.
 */
export function tlsMaterialProblems(material: TlsMaterial): TlsProblem[] {
  const problems: TlsProblem[] = [];
  const { ca, cert, key } = material;
  if (ca !== undefined) {
    const reason = contextError({ ca });
    if (reason !== undefined) problems.push({ field: 'ca_file', problem: reason });
    else if (!ca.toString('latin1').includes('-----BEGIN CERTIFICATE-----')) {
      problems.push({ field: 'ca_file', problem: 'holds no PEM certificate' });
    }
  }
  if (cert !== undefined && key !== undefined) {
    const reason = contextError({ cert, key });
    if (reason !== undefined) {
      problems.push({ field: 'cert_file', problem: `is not a certificate matching key_file (${reason})` });
    }
  }
  return problems;
}

function contextError(material: { ca?: Buffer; cert?: Buffer; key?: Buffer }): string | undefined {
  try {
    createSecureContext(material);
    return undefined;
  } catch (err) {
    // OpenSSL's reason only, never anything read from the file.
    const e = err as { reason?: string; code?: string };
    return e.reason ?? e.code ?? 'not valid PEM';
  }
}

/** Supplies the dispatcher for the next request. */
export interface DispatcherSource {
  /** The dispatcher to send the next request with; rejects when no usable TLS files were ever read. */
  dispatcher(): Promise<Dispatcher>;
  close(): Promise<void>;
}

interface Built {
  /** Modification time, size and inode of every TLS file: a change of any makes a new dispatcher. */
  readonly version: string;
  readonly dispatcher: Dispatcher;
}

/**
 * The connection to the upstream. With TLS files, each request first checks (`stat`) whether one
 * changed; a change makes a new dispatcher while requests in flight finish on the old one. A file
 * that turns unreadable or invalid keeps the last good dispatcher and is reported until fixed.
 */
export class UpstreamConnection implements DispatcherSource {
  readonly #settings: ConnectionSettings;
  readonly #reader = new RegularFileReader({ maxBytes: TLS_FILE_MAX_BYTES, timeoutMs: TLS_FILE_TIMEOUT_MS });
  /** Hears why TLS files became unusable (the last good ones stay in use), undefined once fixed. */
  readonly #onFileError: ((reason: string | undefined) => void) | undefined;
  /** The TLS files in a fixed order, with their config keys. */
  readonly #files: ReadonlyArray<{ readonly field: TlsProblem['field']; readonly path: string }>;
  #current: Built | undefined;
  /** The version whose files were found bad: not read again until a file changes once more. */
  #badVersion: string | undefined;
  #checking: Promise<Dispatcher> | undefined;
  /** Why the TLS files in use are not the ones on disk; undefined when they are. */
  #fileError: string | undefined;

  constructor(
    settings: ConnectionSettings,
    { onFileError }: { readonly onFileError?: (reason: string | undefined) => void } = {},
  ) {
    this.#settings = settings;
    this.#onFileError = onFileError;
    const { caFile, certFile, keyFile } = settings.tls;
    this.#files = [
      { field: 'ca_file' as const, path: caFile },
      { field: 'cert_file' as const, path: certFile },
      { field: 'key_file' as const, path: keyFile },
    ].filter((f): f is { field: TlsProblem['field']; path: string } => f.path !== undefined);
  }

  dispatcher(): Promise<Dispatcher> {
    if (this.#files.length === 0) {
      if (this.#current !== undefined) return Promise.resolve(this.#current.dispatcher);
      return loadUndici().then((undici) => {
        this.#current ??= { version: '', dispatcher: this.#build(undici, NO_MATERIAL) };
        return this.#current.dispatcher;
      });
    }
    // Requests arriving together share one check instead of each reading the files.
    this.#checking ??= this.#check().finally(() => {
      this.#checking = undefined;
    });
    return this.#checking;
  }

  async close(): Promise<void> {
    await this.#current?.dispatcher.close();
  }

  async #check(): Promise<Dispatcher> {
    let version: string;
    try {
      version = (
        await this.#eachFile(async (path) => {
          // With a deadline: on a hung mount a plain stat never returns, and every request waits on it.
          const info = await statWithin(path, { timeoutMs: TLS_FILE_TIMEOUT_MS });
          return `${info.mtimeMs}:${info.size}:${info.ino}`;
        })
      ).join('|');
    } catch (err) {
      return this.#keep((err as Error).message);
    }
    if (version === this.#current?.version) return this.#fine(this.#current.dispatcher);
    if (version === this.#badVersion && this.#current) return this.#current.dispatcher;
    let material: TlsMaterial;
    try {
      const got = await this.#eachFile((path) => this.#reader.read(path));
      const at = (field: TlsProblem['field']) => got[this.#files.findIndex((f) => f.field === field)];
      material = { ca: at('ca_file'), cert: at('cert_file'), key: at('key_file') };
    } catch (err) {
      this.#badVersion = version;
      return this.#keep((err as Error).message);
    }
    const problems = tlsMaterialProblems(material);
    if (problems.length > 0) {
      this.#badVersion = version;
      const pathOf = (p: TlsProblem) => this.#files.find((f) => f.field === p.field)?.path ?? '';
      return this.#keep(
        problems.map((p) => `upstream.tls_config.${p.field} ${pathOf(p)}: ${p.problem}`).join('; '),
      );
    }
    const undici = await loadUndici();
    const previous = this.#current;
    this.#current = { version, dispatcher: this.#build(undici, material) };
    this.#badVersion = undefined;
    // Requests already sent on the old dispatcher finish there: close() waits for them. A
    // request takes its dispatcher and dispatches in one step, so none picks up the old one now.
    previous?.dispatcher.close().catch(() => {});
    return this.#fine(this.#current.dispatcher);
  }

  /** `fn` of each TLS file in turn; a failure names the file's key and path. */
  async #eachFile<T>(fn: (path: string) => Promise<T>): Promise<T[]> {
    const out: T[] = [];
    for (const f of this.#files) {
      try {
        out.push(await fn(f.path));
      } catch (err) {
        // Only the code: a message might quote the content.
        const problem = err instanceof FileReadError ? err.problem : (err as NodeJS.ErrnoException)?.code;
        throw new Error(`upstream.tls_config.${f.field}: cannot read ${f.path}: ${problem ?? 'read failed'}`);
      }
    }
    return out;
  }

  /** The last good dispatcher, with the reason reported; without one, the reason is the failure. */
  #keep(reason: string): Dispatcher {
    if (this.#current === undefined) throw new Error(reason);
    this.#setError(reason);
    return this.#current.dispatcher;
  }

  #fine(dispatcher: Dispatcher): Dispatcher {
    this.#setError(undefined);
    return dispatcher;
  }

  #setError(reason: string | undefined): void {
    if (reason === this.#fileError) return;
    this.#fileError = reason;
    this.#onFileError?.(reason);
  }

  #build(undici: Undici, material: TlsMaterial): Dispatcher {
    const base = buildDispatcher(undici, this.#settings, material);
    return this.#settings.followRedirects
      ? base.compose(undici.interceptors.redirect({ maxRedirections: MAX_REDIRECTS }))
      : base;
  }
}

const NO_MATERIAL: TlsMaterial = { ca: undefined, cert: undefined, key: undefined };

/** The options of `tls.connect` for the upstream (and an HTTPS proxy). */
function tlsOptions(tls: UpstreamTlsSettings, material: TlsMaterial) {
  return {
    ...(material.ca ? { ca: material.ca } : {}),
    ...(material.cert ? { cert: material.cert } : {}),
    ...(material.key ? { key: material.key } : {}),
    ...(tls.serverName ? { servername: tls.serverName } : {}),
    rejectUnauthorized: !tls.insecureSkipVerify,
    minVersion: TLS_VERSIONS[tls.minVersion],
    ...(tls.maxVersion ? { maxVersion: TLS_VERSIONS[tls.maxVersion] } : {}),
  };
}

/** A proxy setting from the environment, as Go's `httpproxy.FromEnvironment` reads it. */
function fromEnv(name: string): string {
  return process.env[name.toUpperCase()] || process.env[name.toLowerCase()] || '';
}

/** The dispatcher for the settings and the TLS material read for them, without redirects. */
function buildDispatcher(undici: Undici, settings: ConnectionSettings, material: TlsMaterial): Dispatcher {
  const tls = tlsOptions(settings.tls, material);
  const agent = { keepAliveTimeout: 30_000, connections: 64, connect: tls } as const;
  const proxy = settings.proxy;
  if (proxy.kind === 'none') return new undici.Agent(agent);
  // Given explicitly, the values never fall back to process.env.
  const target =
    proxy.kind === 'url'
      ? { httpProxy: proxy.url, httpsProxy: proxy.url, noProxy: proxy.noProxy ?? '' }
      : {
          httpProxy: fromEnv('http_proxy'),
          httpsProxy: fromEnv('https_proxy'),
          noProxy: fromEnv('no_proxy'),
        };
  const headers = Object.fromEntries(
    Object.entries(settings.proxyConnectHeader).map(([name, values]) => [name.toLowerCase(), [...values]]),
  );
  return new undici.EnvHttpProxyAgent({
    ...agent,
    ...target,
    // The upstream's TLS inside the CONNECT tunnel; an https:// proxy trusts the same CA, as in Go.
    requestTls: tls,
    proxyTls: material.ca ? { ca: material.ca } : {},
    headers,
  });
}
