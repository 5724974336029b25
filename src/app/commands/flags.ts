/** The flags of the exporter (`station-exporter [flags]` and `once`); imports nothing heavy, for a fast `--help`. */
import { parseArgs } from 'node:util';
import type { HttpLimits } from '../../server/http.ts';

const RUN_FLAGS = {
  config: { type: 'string', short: 'c' },
  'config.file': { type: 'string' },
  'web.listen-address': { type: 'string', multiple: true },
  'web.systemd-socket': { type: 'boolean' },
  'web.telemetry-path': { type: 'string' },
  'web.disable-exporter-metrics': { type: 'boolean' },
  'log.level': { type: 'string' },
  'log.format': { type: 'string' },
  'web.config.file': { type: 'string' },
  'web.enable-lifecycle': { type: 'boolean' },
  'web.read-header-timeout': { type: 'string' },
  'web.request-timeout': { type: 'string' },
  'web.idle-timeout': { type: 'string' },
  'web.write-timeout': { type: 'string' },
  'web.max-connections': { type: 'string' },
  shard: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

/** The flags as given; absent ones take the config's value or the default. */
export const parseRunFlags = (args: string[]) =>
  parseArgs({ args, options: RUN_FLAGS, strict: true, allowPositionals: false }).values;

/** What `serve` and `once` run with: the flags, and the HTTP limits read from them. */
export type RunOptions = ReturnType<typeof parseRunFlags> & { readonly limits: HttpLimits };
