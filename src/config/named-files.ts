/**
 * The files the config names (`token_file`, `tls_config`'s, `limits_file`), resolved against the
 * config's directory and read once at load time, so that a missing or broken file is a config
 * error with a path, not a failed handshake or a silently rolling chart later.
 */
import { isAbsolute, resolve } from 'node:path';
import {
  type ConnectionSettings,
  TLS_FILE_MAX_BYTES,
  type TlsMaterial,
  tlsMaterialProblems,
} from '../upstream/connection.ts';
import { FileReadError, readRegularFileSync } from '../util/read-file.ts';
import type { PathIssue } from './env.ts';
import { isRecord } from './fields.ts';
import { LIMITS_MAX_BYTES, LimitsFileError, parseLimits } from './limits-schema.ts';
import { fileErrorText, readErrorText } from './read-errors.ts';
import type { ConfigData } from './schema.ts';
import { TOKEN_FILE_MAX_BYTES, tokenProblem } from './token.ts';

/** Where the expanded config input is, and which of its paths failed to expand (skipped). */
export interface Input {
  readonly raw: unknown;
  readonly baseDir: string;
  readonly skip: Set<string>;
}

const absolute = (path: string, baseDir: string) => (isAbsolute(path) ? path : resolve(baseDir, path));

/** The file the input names at `path`, absolute; undefined when unset, empty or not expanded. */
function namedFile(input: Input, path: readonly string[]): string | undefined {
  const name = path.reduce<unknown>((node, key) => (isRecord(node) ? node[key] : undefined), input.raw);
  if (typeof name !== 'string' || name === '' || input.skip.has(path.join('.'))) return undefined;
  return absolute(name, input.baseDir);
}

const TOKEN_FILE = ['upstream', 'token_file'];

/** The token file to read, unless an inline token is set too (the config is rejected for that already). */
export function tokenFilePath(input: Input): string | undefined {
  const upstream = isRecord(input.raw) ? input.raw.upstream : undefined;
  return isRecord(upstream) && upstream.token !== undefined ? undefined : namedFile(input, TOKEN_FILE);
}

/** Checks at load time what the token provider will need; `learn` hears the token, to mask it. */
export function checkTokenFile(path: string | undefined, learn: (secret: string) => void): PathIssue[] {
  if (path === undefined) return [];
  let text: string;
  try {
    text = readRegularFileSync(path, { maxBytes: TOKEN_FILE_MAX_BYTES }).trim();
  } catch (err) {
    if (err instanceof FileReadError) return [{ path: TOKEN_FILE, message: err.message }];
    return [{ path: TOKEN_FILE, message: `cannot read ${path}: ${fileErrorText(err)}` }];
  }
  if (text === '') return [{ path: TOKEN_FILE, message: `${path} is empty` }];
  learn(text);
  const problem = tokenProblem(text);
  return problem ? [{ path: TOKEN_FILE, message: `${path}: ${problem}` }] : [];
}

const TLS_FIELDS = ['ca_file', 'cert_file', 'key_file'] as const;

/** Reads the TLS files the input names and reports what keeps them from being used. */
export function checkTlsFiles(input: Input): PathIssue[] {
  const issues: PathIssue[] = [];
  const read: Partial<Record<(typeof TLS_FIELDS)[number], Buffer>> = {};
  for (const field of TLS_FIELDS) {
    const path = namedFile(input, ['upstream', 'tls_config', field]);
    if (path === undefined) continue;
    try {
      read[field] = Buffer.from(readRegularFileSync(path, { maxBytes: TLS_FILE_MAX_BYTES }), 'utf8');
    } catch (err) {
      issues.push({
        path: ['upstream', 'tls_config', field],
        message: `cannot read ${path}: ${readErrorText(err)}`,
      });
    }
  }
  if (issues.length > 0) return issues;
  const material: TlsMaterial = { ca: read.ca_file, cert: read.cert_file, key: read.key_file };
  return tlsMaterialProblems(material).map((p) => ({
    path: ['upstream', 'tls_config', p.field],
    message: p.problem,
  }));
}

const LIMITS_FILE = ['measurements', 'control', 'limits_file'];

/** Every problem of the limits file the input names, as `…: FILE: charts[3].sigma: …`. */
export function checkLimitsFile(input: Input): PathIssue[] {
  const path = namedFile(input, LIMITS_FILE);
  if (path === undefined) return [];
  let text: string;
  try {
    text = readRegularFileSync(path, { maxBytes: LIMITS_MAX_BYTES });
  } catch (err) {
    return [{ path: LIMITS_FILE, message: `cannot read ${path}: ${readErrorText(err)}` }];
  }
  try {
    parseLimits(text, path);
    return [];
  } catch (err) {
    if (!(err instanceof LimitsFileError)) throw err;
    return err.issues.map((message) => ({ path: LIMITS_FILE, message }));
  }
}

/** The validated data with every file path absolute (the token file's as read at load time). */
export function withAbsolutePaths(
  data: ConfigData,
  baseDir: string,
  tokenFile: string | undefined,
): ConfigData {
  const abs = (p: string | undefined) => (p === undefined ? p : absolute(p, baseDir));
  const { upstream, measurements } = data;
  const { tls } = upstream.connection;
  const connection: ConnectionSettings = {
    ...upstream.connection,
    tls: { ...tls, caFile: abs(tls.caFile), certFile: abs(tls.certFile), keyFile: abs(tls.keyFile) },
  };
  const token =
    upstream.token.kind === 'file' && tokenFile !== undefined
      ? { kind: 'file' as const, path: tokenFile }
      : upstream.token;
  const control = { ...measurements.control, limitsFile: abs(measurements.control.limitsFile) };
  return {
    ...data,
    upstream: { ...upstream, token, connection },
    measurements: { ...measurements, control },
  };
}
