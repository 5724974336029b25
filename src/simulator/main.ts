import { parseArgs } from 'node:util';
import { generateSecret, issueJwt, parseExpiry } from './jwt-issuer.ts';
import { DEFAULT_SCALE } from './plant.ts';
import { loadRecording, RecordingError } from './replay.ts';
import { type SimulatorServerOptions, startSimulatorServer } from './server.ts';
import type { PlantScale, Recording, Replay, Scenario, TokenScope } from './types.ts';

/** Environment variable holding the JWT secret. */
export const JWT_ENV = 'STATION_SIM_JWT_SECRET';

// Each flag once: its parseArgs type and, for the usage text, its argument and help.
const OPTIONS = {
  port: { type: 'string', help: 'N|listen port (default 8080; 0 = random)' },
  host: { type: 'string', help: 'ADDR|listen address (default 127.0.0.1)' },
  seed: { type: 'string', help: 'N|plant and fault seed (default 42)' },
  token: {
    type: 'string',
    multiple: true,
    help:
      'TOKEN[:SITE,..]|accepted bearer token, optionally limited to site ids; repeatable\n' +
      '(default demo-token, all sites)',
  },
  sites: { type: 'string', help: `N|sites (default ${DEFAULT_SCALE.sites})` },
  'lines-per-site': { type: 'string', help: `N|lines per site (default ${DEFAULT_SCALE.linesPerSite})` },
  'stations-per-line': {
    type: 'string',
    help: `N|stations per line, counting each station of a group (default ${DEFAULT_SCALE.stationsPerLine})`,
  },
  measurements: { type: 'string', help: `N|measurement names (default ${DEFAULT_SCALE.measurementNames})` },
  'units-per-hour': {
    type: 'string',
    help: `N|units entering each line per hour (default ${DEFAULT_SCALE.unitsPerHour})`,
  },
  plant: {
    type: 'string',
    help:
      'KIND|textbook (default) or realistic: autocorrelated, skewed values,\n' +
      '2-4 products a line, lines at their targets, shift changes and stops',
  },
  'yield-scale': { type: 'string', help: 'S|ratio (0..1, default) or percent (0..100)' },
  'max-records': { type: 'string', help: 'N|silently truncate list results to N records (oldest kept)' },
  'exotic-names': { type: 'boolean', help: '|names with quotes, backslash, newline and non-ASCII' },
  'hostile-names': { type: 'boolean', help: '|names that are markup (<script>, quotes, &) and non-ASCII' },
  'jwt-secret': {
    type: 'string',
    help: `SECRET|also accept HS256 JWTs signed with SECRET (or env ${JWT_ENV})`,
  },
  replay: { type: 'string', help: 'DIR|serve a recording (station-exporter record) instead of the plant' },
  'shift-to-now': { type: 'boolean', help: '|with --replay: move recorded time so that its end is now' },
  'yield-drop': { type: 'string', help: "LINE:RATIO|that share (0..1) of a line's units fail its last step" },
  latency: { type: 'string', help: 'D|added latency, e.g. 200ms or 1s (default 0)' },
  jitter: { type: 'string', help: 'D|extra random latency up to D' },
  'error-rate': { type: 'string', help: 'R|share of requests answered 500 (0..1)' },
  'hang-rate': { type: 'string', help: 'R|share of requests never answered until the client aborts' },
  'malformed-rate': { type: 'string', help: 'R|share of requests answered with truncated JSON' },
  drift: { type: 'string', help: 'KIND|missing-field | extra-field' },
  'forbid-stations': { type: 'string', help: 'IDS|comma-separated station ids answered 403' },
  large: { type: 'boolean', help: '|pad every response to several MiB' },
  help: { type: 'boolean', short: 'h', help: '|show this help' },
  'issue-token': { type: 'boolean' },
  expires: { type: 'string' },
} as const;

function usageLine([name, o]: [string, { type: string; help?: string; short?: string }]): string {
  const [arg = '', ...help] = o.help?.split('|') ?? [];
  const flag = `${o.short ? `-${o.short}, ` : ''}--${name}${arg ? ` ${arg}` : ''}`;
  return `  ${flag.padEnd(25)}${help.join('|').replaceAll('\n', `\n${' '.repeat(27)}`)}\n`;
}

/** The usage text of `simulate`. */
export const simulatorUsage = () => `Usage: station-exporter simulate [flags]

Serves a deterministic simulator of the Station Data Query Service.

${Object.entries(OPTIONS)
  .filter(([, o]) => 'help' in o)
  .map(usageLine)
  .join('')}
Issue a token (printed on stdout) instead of serving:
  --issue-token --sites all|ID,ID --expires 30d [--jwt-secret SECRET]
      The secret comes from --jwt-secret or ${JWT_ENV}; without either, one is generated
      and printed on stderr (start the simulator with it).
`;

type Values = ReturnType<typeof parse>;

/** Reads a non-negative number from the option `name`; `integer` (default true) also requires a whole one. */
function num(values: Values, name: keyof Values, { integer = true }: { readonly integer?: boolean } = {}) {
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
    const r = num(v, flag as keyof Values, { integer: false });
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
  if (v['yield-drop']) {
    const [lineId = '', ratio = ''] = v['yield-drop'].split(':', 2);
    s.yieldDrop = { lineId, failRatio: Number(ratio) };
  }
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

/** What `simulate --issue-token` needs. */
export interface IssueTokenRequest {
  readonly sites: 'all' | string[];
  readonly expiresSeconds: number;
  readonly secret: string | undefined;
}

/** Parsed `simulate` arguments: serve (with an optional recording to load), issue a token, or help. */
export type SimulatorCommand =
  | { kind: 'serve'; opts: SimulatorServerOptions; replayDir?: string; shiftToNow: boolean }
  | { kind: 'issue-token'; request: IssueTokenRequest }
  | 'help';

function issueTokenOf(v: Values, env: NodeJS.ProcessEnv): IssueTokenRequest {
  if (!v.sites) throw new Error('--issue-token needs --sites all or a comma-separated list of site ids');
  if (!v.expires) throw new Error('--issue-token needs --expires, e.g. 30d');
  const sites = v.sites === 'all' ? 'all' : v.sites.split(',').filter(Boolean);
  return { sites, expiresSeconds: parseExpiry(v.expires), secret: v['jwt-secret'] ?? env[JWT_ENV] };
}

const parse = (argv: string[]) =>
  parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: false }).values;

/** Turns command-line arguments into a command; throws with a readable message on bad input. */
export function parseSimulatorCommand(argv: string[], env: NodeJS.ProcessEnv = {}): SimulatorCommand {
  const v = parse(argv);
  if (v.help) return 'help';
  if (v['issue-token']) return { kind: 'issue-token', request: issueTokenOf(v, env) };
  if (v['shift-to-now'] && !v.replay) throw new Error('--shift-to-now needs --replay DIR');
  const opts = serveOptionsOf(v);
  const secret = v['jwt-secret'] ?? env[JWT_ENV];
  if (secret) opts.jwtSecret = secret;
  return { kind: 'serve', opts, replayDir: v.replay, shiftToNow: v['shift-to-now'] ?? false };
}

/** Turns command-line arguments into server options; throws with a readable message on bad input. */
export function parseSimulatorArgs(argv: string[]): SimulatorServerOptions | 'help' {
  const v = parse(argv);
  return v.help ? 'help' : serveOptionsOf(v);
}

function serveOptionsOf(v: Values): SimulatorServerOptions {
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
  if (v['hostile-names']) opts.hostileNames = true;
  if (v.plant !== undefined) {
    if (v.plant !== 'textbook' && v.plant !== 'realistic') {
      throw new Error(`--plant: expected textbook or realistic, got "${v.plant}"`);
    }
    opts.plant = v.plant;
  }
  if (yieldScale) opts.yieldScale = yieldScale;
  const maxRecords = num(v, 'max-records');
  if (maxRecords !== undefined) opts.maxRecords = maxRecords;
  return opts;
}

/** Prints a token on stdout; a generated secret goes to stderr, never next to the token. */
function issueToken(request: IssueTokenRequest, nowMs: number): void {
  let secret = request.secret;
  if (!secret) {
    secret = generateSecret();
    process.stderr.write(
      `simulate: generated secret (start the simulator with --jwt-secret or ${JWT_ENV}):\n${secret}\n`,
    );
  }
  const iat = Math.floor(nowMs / 1000);
  const claims = { sites: request.sites, iatSeconds: iat, expSeconds: iat + request.expiresSeconds };
  process.stdout.write(`${issueJwt(claims, secret)}\n`);
}

/** The recording `--replay` names; undefined (exit code 2) after saying why it is refused. */
async function loadReplay(dir: string): Promise<Recording | undefined> {
  try {
    return await loadRecording(dir);
  } catch (err) {
    if (!(err instanceof RecordingError)) throw err;
    process.stderr.write(`simulate: --replay: ${err.message}\n`);
    process.exitCode = 2;
    return undefined;
  }
}

/** What the simulator prints when it listens: where, which plant, which tokens it accepts. */
function banner(
  running: Awaited<ReturnType<typeof startSimulatorServer>>,
  opts: SimulatorServerOptions,
  replayDir: string | undefined,
): string {
  const { plant } = running.sim;
  const tokens = Object.keys(opts.tokens ?? {});
  // Only the built-in demo token is printed; a token chosen by the user is treated as a secret.
  const hint = tokens.join() === 'demo-token' ? 'demo-token' : `${tokens.length} token(s) from --token`;
  const plantKind = typeof opts.plant === 'object' ? 'realistic' : (opts.plant ?? 'textbook');
  return (
    `Station Data Query Service simulator listening on ${running.url}\n` +
    (replayDir && opts.replay ? replayLine(replayDir, opts.replay) : '') +
    `  seed ${opts.seed}, ${plantKind} plant, ${plant.sites.length} sites, ${plant.stations.length} stations, ` +
    `${plant.measurementNames.length} measurement names\n` +
    `  auth: Authorization: Bearer <token> (accepted: ${hint}${opts.jwtSecret ? ', and JWTs signed with the secret' : ''})\n` +
    `  try: curl -H 'Authorization: Bearer <token>' ${running.url}/sites\n`
  );
}

function replayLine(dir: string, replay: Replay): string {
  return `  replaying ${dir} (recording ${replay.recording.meta.id})${replay.shiftToNow ? ', shifted to now' : ''}\n`;
}

/** `station-exporter simulate ...`: serves the simulator until SIGTERM or SIGINT. */
export async function runSimulatorCommand(argv: string[]): Promise<void> {
  let command: SimulatorCommand;
  try {
    command = parseSimulatorCommand(argv, process.env);
  } catch (err) {
    process.stderr.write(
      `simulate: ${err instanceof Error ? err.message : String(err)}\n\n${simulatorUsage()}`,
    );
    process.exitCode = 2;
    return;
  }
  if (command === 'help') {
    process.stdout.write(simulatorUsage());
    return;
  }
  if (command.kind === 'issue-token') {
    issueToken(command.request, Date.now());
    return;
  }
  const { opts } = command;
  if (command.replayDir) {
    const recording = await loadReplay(command.replayDir);
    if (!recording) return;
    opts.replay = { recording, shiftToNow: command.shiftToNow };
  }
  const running = await startSimulatorServer(opts);
  process.stdout.write(banner(running, opts, command.replayDir));
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
