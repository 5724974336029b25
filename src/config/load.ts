import { dirname, resolve } from 'node:path';
import { formatBytes, readRegularFile } from '../util/read-file.ts';
import { maskCredentialLike, Redactor } from '../util/redact.ts';
import { expandEnv } from './env.ts';
import { configErrorMap, flattenIssues, formatIssue, formatPath, IssueListError } from './issues.ts';
import { labelSecretIssues } from './label-secrets.ts';
import {
  checkLimitsFile,
  checkTlsFiles,
  checkTokenFile,
  tokenFilePath,
  withAbsolutePaths,
} from './named-files.ts';
import { parseYamlMapping, readErrorText } from './read-errors.ts';
import { type Config, configSchema } from './schema.ts';

/** Largest config file read: a real one is a few KiB, and YAML's node tree costs many times the text. */
export const CONFIG_MAX_BYTES = 1024 * 1024;

/** Most YAML alias uses (`maxAliasCount`): real reuse needs a few dozen, a "billion laughs" thousands. */
export const CONFIG_MAX_ALIASES = 100;

/**
 * Largest config after alias expansion, in estimated bytes: aliases repeating a large mapping would
 * grow a 1 MiB file into gigabytes once `${VAR}` expansion copies every repeat.
 */
const CONFIG_MAX_EXPANDED_BYTES = 4 * CONFIG_MAX_BYTES;

/** How long reading the config file may take (a hung network mount, say). */
const CONFIG_READ_TIMEOUT_MS = 10_000;

/** Options shared by {@link parseConfig} and {@link configFromObject}. */
export interface ParseOptions {
  /** Variables for `${VAR}` expansion; defaults to `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Directory against which a relative `token_file` resolves (the config file's directory). */
  baseDir: string;
  /** Where the config came from, for error messages (a file name, or e.g. "built-in defaults"). */
  source?: string;
  /**
   * Hears every token the loader sees (inline after `${VAR}` expansion, the token file's content),
   * even in a rejected config, so that the process's redactor masks it wherever it turns up.
   */
  onSecret?: (secret: string) => void;
}

/** A config that cannot be used. `issues` holds every problem found, each as `path: message`. */
export class ConfigError extends IssueListError {
  constructor(source: string, issues: readonly string[]) {
    super(`invalid configuration in ${maskCredentialLike(source)}`, issues);
    this.name = 'ConfigError';
  }
}

/** Reads, expands, validates and resolves the config file at `path`; throws {@link ConfigError}. */
export async function loadConfig(
  path: string,
  env: NodeJS.ProcessEnv = process.env,
  opts: { readonly onSecret?: (secret: string) => void } = {},
): Promise<Config> {
  let text: string;
  try {
    text = await readRegularFile(path, { maxBytes: CONFIG_MAX_BYTES, timeoutMs: CONFIG_READ_TIMEOUT_MS });
  } catch (err) {
    throw new ConfigError(path, [`cannot read config file: ${readErrorText(err)}`]);
  }
  return parseConfig(text, { env, baseDir: dirname(resolve(path)), source: path, onSecret: opts.onSecret });
}

/** Validates YAML text as a config. Throws {@link ConfigError} listing every problem found. */
export function parseConfig(yamlText: string, opts: ParseOptions): Config {
  const source = opts.source ?? 'config';
  const tree = parseYamlMapping(
    yamlText,
    { maxBytes: CONFIG_MAX_BYTES, maxAliases: CONFIG_MAX_ALIASES },
    {
      what: 'the config',
      empty: 'the config file is empty',
      notMapping: 'the top level of the config file must be a mapping of keys to values',
    },
  );
  if ('issues' in tree) throw new ConfigError(source, tree.issues);
  const raw = tree.value;
  if (expandsBeyond(raw, CONFIG_MAX_EXPANDED_BYTES)) {
    throw new ConfigError(source, [
      `YAML aliases expand the config beyond the limit of ${formatBytes(CONFIG_MAX_EXPANDED_BYTES)}`,
    ]);
  }
  return configFromObject(raw, { ...opts, source });
}

/** Whether the tree, alias repeats counted again, exceeds `limit`; stops as soon as it does. */
function expandsBeyond(value: unknown, limit: number): boolean {
  let size = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && size <= limit) {
    const node = stack.pop();
    if (typeof node === 'string') size += node.length;
    else if (Array.isArray(node)) {
      size += 8;
      stack.push(...node);
    } else if (node !== null && typeof node === 'object') {
      for (const [key, item] of Object.entries(node)) {
        size += 8 + key.length;
        stack.push(item);
      }
    } else size += 8;
  }
  return size > limit;
}

/** The proxy's credentials (`proxy_url`'s password, `proxy_connect_header` values), masked like the token. */
function proxySecrets(upstream: Record<string, unknown> | undefined): string[] {
  const headers = upstream?.proxy_connect_header;
  const values =
    typeof headers === 'object' && headers !== null
      ? Object.values(headers).filter(Array.isArray).flat()
      : [];
  return [...urlPassword(upstream?.proxy_url), ...values.filter((v): v is string => typeof v === 'string')];
}

/** The password of a URL with one, as a list of none or one. */
function urlPassword(url: unknown): string[] {
  try {
    const password = typeof url === 'string' ? decodeURIComponent(new URL(url).password) : '';
    return password === '' ? [] : [password];
  } catch {
    // Not a URL: the schema reports it, without quoting it.
    return [];
  }
}

/** Validates a parsed config object (built-in defaults) exactly like a file; throws {@link ConfigError}. */
export function configFromObject(raw: unknown, opts: ParseOptions): Config {
  const source = opts.source ?? 'config';
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ConfigError(source, ['the configuration must be a mapping of keys to values']);
  }
  const expanded = expandEnv(raw, opts.env ?? process.env);
  // Learnt before validation: a rejected config's messages may quote a misplaced token.
  const secrets = new Redactor();
  const learn = (secret: string) => {
    secrets.add(secret);
    opts.onSecret?.(secret);
  };
  const upstream = (expanded.value as { upstream?: Record<string, unknown> }).upstream;
  if (typeof upstream?.token === 'string') learn(upstream.token);
  for (const secret of proxySecrets(upstream)) learn(secret);
  const parsed = configSchema.safeParse(expanded.value, { error: configErrorMap });
  // A value whose ${VAR} failed to expand would also fail validation; report only the cause.
  const unexpanded = new Set(expanded.issues.map((i) => formatPath(i.path)));
  const schemaIssues = parsed.success
    ? []
    : flattenIssues(parsed.error.issues).filter((i) => !unexpanded.has(formatPath(i.path)));
  const input = { raw: expanded.value, baseDir: opts.baseDir, skip: unexpanded };
  const tokenFile = tokenFilePath(input);
  const issues = [...expanded.issues, ...schemaIssues, ...checkTokenFile(tokenFile, learn)];
  issues.push(...checkTlsFiles(input), ...checkLimitsFile(input));
  // After the token file is read: the redactor must know every token before the labels are checked.
  issues.push(...labelSecretIssues(expanded.value, secrets.apply));
  if (issues.length > 0 || !parsed.success)
    throw new ConfigError(
      source,
      issues.map((i) => secrets.redact(formatIssue(i))),
    );
  const config = withAbsolutePaths(parsed.data, opts.baseDir, tokenFile);
  Object.defineProperty(config, LOADED, { value: true, enumerable: false });
  return config as Config;
}

/** Marks a config as the loader's own; {@link assertLoaded} checks the mark at run time too. */
const LOADED = Symbol('station-exporter validated config');

/**
 * Throws unless `config` came from the loader: a hand-built or spread copy (from JavaScript,
 * or past a type cast) would skip validation, so the runtime refuses it.
 */
export function assertLoaded(config: Config): void {
  if ((config as unknown as Record<symbol, unknown>)[LOADED] !== true) {
    throw new TypeError('a Config must come from the config loader (loadConfig or configFromObject)');
  }
}
