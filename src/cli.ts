#!/usr/bin/env node
/** Command line: arguments -> config -> wire up -> serve; the subcommands are in USAGE. */
import { parseArgs } from 'node:util';
import { parseRunFlags } from './app/commands/flags.ts';
import { nearest } from './util/suggest.ts';
import { VERSION } from './version.ts';

const USAGE = `Usage:
  station-exporter [--config.file FILE] [--web.listen-address ADDR ...] [--web.systemd-socket]
                   [--web.telemetry-path /metrics] [--web.disable-exporter-metrics]
                   [--log.level LEVEL] [--log.format logfmt|json] [--shard i/n]
                   [--web.config.file FILE] [--web.enable-lifecycle]
                   [--web.read-header-timeout 10s] [--web.request-timeout 30s]
                   [--web.idle-timeout 2m] [--web.write-timeout 1m] [--web.max-connections 512]
      Run the exporter. Without --config.file (or --config) it runs against a built-in
      simulator (a demo).
      --web.listen-address: repeat it to listen on several addresses.
      --web.systemd-socket: serve on the sockets of a systemd .socket unit instead.
      --web.disable-exporter-metrics: leave out the process_* and nodejs_* metrics.
      --log.format: logfmt (default, as Prometheus) or json.
      --web.config.file: TLS, basic auth, rate limit and headers (exporter-toolkit format).
      --web.enable-lifecycle: allow POST /-/reload.
      --shard i/n polls only shard i (from 0) of n; in a StatefulSet, STATION_EXPORTER_SHARDS=n
      and the pod's ordinal do the same.
  station-exporter check-config [[--config.file] FILE] [--web.config.file FILE]
                                [--stations N [--groups N --lines N --sites N --names N --slots N]]
                                [--discover] [--shard i/n]
      Validate a config file and/or a web config file: print every error and exit 2, or a
      summary and exit 0. Given plant counts (or --discover, which reads the upstream's
      hierarchy), also print the request plan and the estimated series per collector and
      family, for this shard.
  station-exporter once [--config.file FILE]
      Poll everything once and print the exposition on stdout; exit 1 if the upstream
      cannot be reached, 2 for a bad config.
  station-exporter simulate [--port 8080 --seed 42 --token demo-token ...]
      Run the simulator of the Station Data Query Service (see 'simulate --help'); with
      --replay DIR [--shift-to-now] it serves a recording instead.
  station-exporter record --config FILE --from T1 --to T2 --out DIR
      Record sites, units, measurements and summaries from the upstream for replay.
  station-exporter limits study|approve ...
      Phase I study of control limits, written to a limits file for review; approve it
      (see 'limits --help').
  station-exporter help [COMMAND] | COMMAND --help | --help | --version
`;

const CHECK_CONFIG_USAGE = `Usage: station-exporter check-config [[--config.file] FILE] [--web.config.file FILE]
                                    [--stations N [--groups N --lines N --sites N --names N --slots N]]
                                    [--discover] [--shard i/n]
  Validate a config file and/or a web config file (exporter-toolkit format): print every error
  with its path and exit 2, or a summary and exit 0. The token is never printed.
  --stations N ...   plant counts: also print the request plan and the estimated series per
                     collector and family
  --discover         read the plant's counts from the upstream's hierarchy instead
  --shard i/n        plan for shard i (from 0) of n
  -h, --help         show this help
`;

const ONCE_USAGE = `Usage: station-exporter once [--config.file FILE] [--log.level LEVEL] [--log.format logfmt|json]
                             [--web.disable-exporter-metrics] [--shard i/n]
  Poll everything once and print the exposition on stdout. Exit 0 when every request was
  answered, 1 when the upstream cannot be reached or a poll failed, 2 for a bad config.
  Without --config it polls the built-in simulator (the demo).
  -h, --help         show this help
`;

/** The subcommands, for help and for "did you mean". */
const COMMANDS = ['check-config', 'once', 'simulate', 'record', 'limits', 'help'] as const;

/** Usage of one subcommand; loaded lazily, as the simulator's and recorder's live with them. */
async function usageOf(command: string): Promise<string | undefined> {
  if (command === 'check-config') return CHECK_CONFIG_USAGE;
  if (command === 'once') return ONCE_USAGE;
  if (command === 'simulate') return (await import('./simulator/main.ts')).simulatorUsage();
  if (command === 'record') return (await import('./app/record-upstream.ts')).RECORD_USAGE;
  if (command === 'limits') return (await import('./app/limits/command.ts')).LIMITS_USAGE;
  if (command === 'help') return USAGE;
  return undefined;
}

/** `help [COMMAND]`: the usage of one subcommand, or of all. */
async function help(args: string[]): Promise<number> {
  const [command, ...extra] = args;
  if (command === undefined) return print(USAGE);
  const usage = extra.length === 0 ? await usageOf(command) : undefined;
  return usage === undefined ? unknownCommand(args.join(' ')) : print(usage);
}

/** Writes a usage or the version to stdout: exit code 0. */
function print(text: string): number {
  process.stdout.write(text);
  return 0;
}

/** An argument where a subcommand belongs: list the subcommands, suggest the nearest. */
function unknownCommand(typed: string): number {
  const guess = nearest(typed, COMMANDS);
  const hint = guess === undefined ? '' : ` (did you mean "${guess}"?)`;
  process.stderr.write(
    `station-exporter: unknown command "${typed}"${hint}\n` +
      `Commands: ${COMMANDS.join(', ')}; without one it runs the exporter. See 'station-exporter --help'.\n`,
  );
  return 2;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'simulate':
      return simulate(rest);
    case 'record':
      return (await import('./app/record-upstream.ts')).runRecord(rest);
    case 'limits':
      return (await import('./app/limits/command.ts')).runLimits(rest);
    case 'check-config':
      return checkConfig(rest);
    case 'help':
      return help(rest);
    case 'once':
      return runExporter({ args: rest, once: true });
  }
  // A first argument that is no flag must be a subcommand.
  if (command !== undefined && !command.startsWith('-')) return unknownCommand(command);
  return runExporter({ args: argv, once: false });
}

async function simulate(args: string[]): Promise<number> {
  const { runSimulatorCommand } = await import('./simulator/main.ts');
  await runSimulatorCommand(args);
  return process.exitCode === undefined ? -1 : Number(process.exitCode);
}

type RunFlags = ReturnType<typeof parseRunFlags>;

/** Runs the exporter: serving, or `once` (one poll printed to stdout). */
async function runExporter(run: { args: string[]; once: boolean }): Promise<number> {
  const usage = run.once ? ONCE_USAGE : USAGE;
  let values: RunFlags;
  try {
    values = parseRunFlags(run.args);
  } catch (err) {
    return usageError(err instanceof Error ? err.message : String(err), usage);
  }
  if (values.help || values.version) return print(values.help ? usage : `station-exporter ${VERSION}\n`);
  // Loaded only now, so that --help and --version stay fast (about 0.2 s of imports).
  const problem = (await logFlagsProblem(values)) ?? (await listenFlagsProblem(values));
  if (problem !== undefined) return usageError(problem);
  if (values.config !== undefined && values['config.file'] !== undefined) {
    return usageError('--config is another name for --config.file: give one');
  }
  const { parseHttpLimits } = await import('./server/flags.ts');
  const limits = parseHttpLimits(values);
  if (typeof limits === 'string') return usageError(limits);
  const opts = { ...values, limits };
  if (run.once) return (await import('./app/commands/once.ts')).runOnce(opts);
  return (await import('./app/commands/serve.ts')).runServe(opts);
}

/** What is wrong with --log.level or --log.format, if anything. */
async function logFlagsProblem(values: RunFlags): Promise<string | undefined> {
  const levels = ['log.level', (await import('./config/schema.ts')).LOG_LEVELS] as const;
  const formats = ['log.format', (await import('./app/wire.ts')).LOG_FORMATS] as const;
  for (const [flag, allowed] of [levels, formats]) {
    const given = values[flag];
    if (given !== undefined && !(allowed as readonly string[]).includes(given))
      return `--${flag} must be one of ${allowed.join(', ')}, got "${given}"`;
  }
  return undefined;
}

/** What is wrong with the flags that say where to serve, if anything. */
async function listenFlagsProblem(values: RunFlags): Promise<string | undefined> {
  const { isListenAddress } = await import('./config/schema.ts');
  const listen = values['web.listen-address'] ?? [];
  const badListen = listen.find((a) => !isListenAddress(a));
  if (badListen !== undefined) return `--web.listen-address must be host:port or :port, got "${badListen}"`;
  if (listen.length > 0 && values['web.systemd-socket']) {
    return '--web.listen-address and --web.systemd-socket exclude each other: give one';
  }
  const path = values['web.telemetry-path'];
  return path === undefined ? undefined : telemetryPathProblem(path);
}

const CHECK_CONFIG_FILES =
  'check-config takes one FILE (or --config.file FILE), --web.config.file FILE, or both';

/** The paths the exporter serves itself, which the metrics cannot take over. */
const RESERVED_PATHS = ['/', '/status', '/-/healthy', '/-/ready', '/-/reload'];

/** Why `--web.telemetry-path` cannot be used, or undefined when it can. */
function telemetryPathProblem(path: string): string | undefined {
  if (!/^\/[A-Za-z0-9._~/-]*$/.test(path) || path.includes('//'))
    return `--web.telemetry-path must be a path such as /metrics (letters, digits, . _ ~ - and /), got "${path}"`;
  if (RESERVED_PATHS.includes(path))
    return `--web.telemetry-path cannot be ${path}: the exporter serves another page there`;
  return undefined;
}

const COUNT_FLAGS = ['stations', 'groups', 'lines', 'sites', 'names', 'slots'] as const;

/** `check-config`: a config (a plain argument or --config, as for `run`), a web config, or both. */
async function checkConfig(args: string[]): Promise<number> {
  let parsed: ReturnType<typeof parseCheckArgs>;
  try {
    parsed = parseCheckArgs(args);
  } catch (err) {
    return usageError(
      `${CHECK_CONFIG_FILES} (${err instanceof Error ? err.message : String(err)})`,
      CHECK_CONFIG_USAGE,
    );
  }
  const { values, positionals } = parsed;
  if (values.help) return print(CHECK_CONFIG_USAGE);
  const named = [values.config, values['config.file']].filter((f): f is string => f !== undefined);
  const files = [...positionals, ...named];
  const webConfig = values['web.config.file'];
  if (files.length > 1 || (files.length === 0 && webConfig === undefined))
    return usageError(CHECK_CONFIG_FILES, CHECK_CONFIG_USAGE);
  const counts = countFlags(values);
  if (typeof counts === 'string') return usageError(counts, CHECK_CONFIG_USAGE);
  const { parseShard } = await import('./sharding/shard.ts');
  if (values.shard !== undefined && 'error' in parseShard(values.shard)) {
    return usageError(`--shard must be index/total such as 0/4, got "${values.shard}"`, CHECK_CONFIG_USAGE);
  }
  const { runCheckConfig } = await import('./app/commands/check-config.ts');
  return runCheckConfig(files[0], webConfig, { counts, discover: values.discover, shard: values.shard });
}

/** The plant counts given as flags, or what is wrong with them. */
function countFlags(
  values: Readonly<Record<string, string | boolean | undefined>>,
): Record<string, number> | string {
  const counts: Record<string, number> = {};
  for (const flag of COUNT_FLAGS) {
    const text = values[flag];
    if (typeof text !== 'string') continue; // not given (the count flags are strings)
    if (!/^\d{1,7}$/.test(text)) return `--${flag} must be a whole number, got "${text}"`;
    counts[flag] = Number(text);
  }
  if (Object.keys(counts).length > 0 && counts.stations === undefined) return 'plant counts need --stations';
  return counts;
}

function parseCheckArgs(args: string[]) {
  return parseArgs({
    args,
    options: {
      config: { type: 'string', short: 'c' },
      'config.file': { type: 'string' },
      'web.config.file': { type: 'string' },
      ...Object.fromEntries(COUNT_FLAGS.map((f) => [f, { type: 'string' as const }])),
      discover: { type: 'boolean' },
      shard: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: true,
  }) as {
    values: Record<string, string | undefined> & { discover?: boolean; shard?: string; help?: boolean };
    positionals: string[];
  };
}

function usageError(message: string, usage: string = USAGE): number {
  process.stderr.write(`station-exporter: ${message}\n\n${usage}`);
  return 2;
}

const code = await main(process.argv.slice(2));
// -1: a server is running and will exit on a signal.
if (code >= 0) process.exitCode = code;
