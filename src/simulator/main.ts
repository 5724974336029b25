import { parseArgs } from 'node:util';
import { DEFAULT_SCALE } from './plant.ts';
import { type SimulatorServerOptions, startSimulatorServer } from './server.ts';
import type { PlantScale, Scenario, TokenScope } from './types.ts';

const USAGE = `Usage: station-exporter simulate [flags]

Serves a deterministic simulator of the Station Data Query Service.

  --port N                 listen port (default 8080; 0 = random)
  --host ADDR              listen address (default 127.0.0.1)
  --seed N                 plant and fault seed (default 42)
  --token TOKEN[:SITE,..]  accepted bearer token, optionally limited to site ids; repeatable
                           (default demo-token, all sites)
  --sites N                sites (default ${DEFAULT_SCALE.sites})
  --lines-per-site N       lines per site (default ${DEFAULT_SCALE.linesPerSite})
  --stations-per-line N    stations per line, counting each station of a group (default ${DEFAULT_SCALE.stationsPerLine})
  --measurements N         measurement names (default ${DEFAULT_SCALE.measurementNames})
  --units-per-hour N       units entering each line per hour (default ${DEFAULT_SCALE.unitsPerHour})
  --yield-scale S          ratio (0..1, default) or percent (0..100)
  --max-records N          silently truncate list results to N records (oldest kept)
  --exotic-names           names with quotes, backslash, newline and non-ASCII
  --latency D              added latency, e.g. 200ms or 1s (default 0)
  --jitter D               extra random latency up to D
  --error-rate R           share of requests answered 500 (0..1)
  --hang-rate R            share of requests never answered until the client aborts
  --malformed-rate R       share of requests answered with truncated JSON
  --drift KIND             missing-field | extra-field
  --forbid-stations IDS    comma-separated station ids answered 403
  --large                  pad every response to several MiB
  --help                   show this help
`;

const OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  seed: { type: 'string' },
  token: { type: 'string', multiple: true },
  sites: { type: 'string' },
  'lines-per-site': { type: 'string' },
  'stations-per-line': { type: 'string' },
  measurements: { type: 'string' },
  'units-per-hour': { type: 'string' },
  'yield-scale': { type: 'string' },
  'max-records': { type: 'string' },
  'exotic-names': { type: 'boolean' },
  latency: { type: 'string' },
  jitter: { type: 'string' },
  'error-rate': { type: 'string' },
  'hang-rate': { type: 'string' },
  'malformed-rate': { type: 'string' },
  drift: { type: 'string' },
  'forbid-stations': { type: 'string' },
  large: { type: 'boolean' },
  help: { type: 'boolean' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS }>>['values'];

function num(values: Values, name: keyof Values, integer = true): number | undefined {
  const raw = values[name];
  if (typeof raw !== 'string') return undefined;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || n < 0 || (integer && !Number.isInteger(n))) {
    throw new Error(`--${name}: expected a non-negative ${integer ? 'integer' : 'number'}, got "${raw}"`);
  }
  return n;
}

/** Parses "200ms", "1.5s", "2m" or a bare number of milliseconds. */
export function parseDuration(raw: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(raw.trim());
  if (!m) throw new Error(`invalid duration "${raw}": use e.g. 200ms, 1s or 2m`);
  const factor = m[2] === 's' ? 1000 : m[2] === 'm' ? 60_000 : 1;
  return Number(m[1]) * factor;
}

function tokensOf(values: string[] | undefined): Record<string, TokenScope> {
  const tokens: Record<string, TokenScope> = {};
  for (const spec of values ?? ['demo-token']) {
    const [token = '', sites] = spec.split(':', 2);
    if (token === '') throw new Error('--token: empty token');
    tokens[token] = { sites: sites === undefined ? 'all' : sites.split(',').filter(Boolean) };
  }
  return tokens;
}

function scenarioOf(v: Values): Partial<Scenario> {
  const s: Partial<Scenario> = {};
  if (v.latency) s.latencyMs = parseDuration(v.latency);
  if (v.jitter) s.jitterMs = parseDuration(v.jitter);
  const rates = {
    'error-rate': 'errorRate',
    'hang-rate': 'hangRate',
    'malformed-rate': 'malformedRate',
  } as const;
  for (const [flag, key] of Object.entries(rates)) {
    const r = num(v, flag as keyof Values, false);
    if (r !== undefined) s[key] = r;
  }
  if (v.drift !== undefined) {
    if (v.drift !== 'missing-field' && v.drift !== 'extra-field' && v.drift !== 'none') {
      throw new Error(`--drift: expected missing-field or extra-field, got "${v.drift}"`);
    }
    s.drift = v.drift;
  }
  if (v['forbid-stations']) s.forbiddenStations = v['forbid-stations'].split(',').filter(Boolean);
  if (v.large) s.large = true;
  return s;
}

function scaleOf(v: Values): Partial<PlantScale> {
  const flags = {
    sites: 'sites',
    'lines-per-site': 'linesPerSite',
    'stations-per-line': 'stationsPerLine',
    measurements: 'measurementNames',
    'units-per-hour': 'unitsPerHour',
  } as const;
  const scale: Partial<PlantScale> = {};
  for (const [flag, key] of Object.entries(flags)) {
    const n = num(v, flag as keyof Values);
    if (n !== undefined) {
      if (n < 1) throw new Error(`--${flag}: must be at least 1`);
      scale[key] = n;
    }
  }
  return scale;
}

/** Turns command-line arguments into server options; throws with a readable message on bad input. */
export function parseSimulatorArgs(argv: string[]): SimulatorServerOptions | 'help' {
  const { values: v } = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: false });
  if (v.help) return 'help';
  const yieldScale = v['yield-scale'];
  if (yieldScale !== undefined && yieldScale !== 'ratio' && yieldScale !== 'percent') {
    throw new Error(`--yield-scale: expected ratio or percent, got "${yieldScale}"`);
  }
  const opts: SimulatorServerOptions = {
    port: num(v, 'port') ?? 8080,
    host: v.host ?? '127.0.0.1',
    seed: num(v, 'seed') ?? 42,
    tokens: tokensOf(v.token),
    scale: scaleOf(v),
    scenario: scenarioOf(v),
    exoticNames: v['exotic-names'] ?? false,
  };
  if (yieldScale) opts.yieldScale = yieldScale;
  const maxRecords = num(v, 'max-records');
  if (maxRecords !== undefined) opts.maxRecords = maxRecords;
  return opts;
}

/** `station-exporter simulate ...`: serves the simulator until SIGTERM or SIGINT. */
export async function runSimulatorCommand(argv: string[]): Promise<void> {
  let opts: SimulatorServerOptions | 'help';
  try {
    opts = parseSimulatorArgs(argv);
  } catch (err) {
    process.stderr.write(`simulate: ${err instanceof Error ? err.message : String(err)}\n\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  if (opts === 'help') {
    process.stdout.write(USAGE);
    return;
  }
  const running = await startSimulatorServer(opts);
  const { plant } = running.sim;
  const tokens = Object.keys(opts.tokens ?? {});
  // Only the built-in demo token is printed; a token chosen by the user is treated as a secret.
  const hint =
    tokens.length === 1 && tokens[0] === 'demo-token'
      ? 'demo-token'
      : `${tokens.length} token(s) from --token`;
  process.stdout.write(
    `Station Data Query Service simulator listening on ${running.url}\n` +
      `  seed ${opts.seed}, ${plant.sites.length} sites, ${plant.stations.length} stations, ` +
      `${plant.measurementNames.length} measurement names\n` +
      `  auth: Authorization: Bearer <token> (accepted: ${hint})\n` +
      `  try: curl -H 'Authorization: Bearer <token>' ${running.url}/sites\n`,
  );
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      running.close().then(resolve, resolve);
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
}
