/**
 * `upstream.tls_config`'s files at load time, resolved like `token_file` and read once, so that a
 * missing CA or a mismatched key is a config error with a path, not a failed handshake later.
 */
import { isAbsolute, resolve } from 'node:path';
import {
  type ConnectionSettings,
  TLS_FILE_MAX_BYTES,
  type TlsMaterial,
  tlsMaterialProblems,
} from '../upstream/connection.ts';
import { readRegularFileSync } from '../util/read-file.ts';
import type { PathIssue } from './env.ts';
import { readErrorText } from './read-errors.ts';

const FIELDS = ['ca_file', 'cert_file', 'key_file'] as const;
type Field = (typeof FIELDS)[number];

/** The settings with every TLS file path absolute. */
export function resolveTlsFiles(connection: ConnectionSettings, baseDir: string): ConnectionSettings {
  const abs = (p: string | undefined) => (p === undefined || isAbsolute(p) ? p : resolve(baseDir, p));
  const { tls } = connection;
  return {
    ...connection,
    tls: { ...tls, caFile: abs(tls.caFile), certFile: abs(tls.certFile), keyFile: abs(tls.keyFile) },
  };
}

/** Reads the TLS files the expanded config names and reports what keeps them from being used. */
export function checkTlsFiles(
  raw: unknown,
  at: { readonly baseDir: string; readonly skip: Set<string> },
): PathIssue[] {
  const tls = (raw as { upstream?: { tls_config?: unknown } } | undefined)?.upstream?.tls_config;
  if (tls === null || typeof tls !== 'object' || Array.isArray(tls)) return [];
  const issues: PathIssue[] = [];
  const read: Partial<Record<Field, Buffer>> = {};
  for (const field of FIELDS) {
    const name = (tls as Record<string, unknown>)[field];
    if (typeof name !== 'string' || name === '' || at.skip.has(`upstream.tls_config.${field}`)) continue;
    const path = isAbsolute(name) ? name : resolve(at.baseDir, name);
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
