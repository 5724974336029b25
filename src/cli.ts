#!/usr/bin/env node
/**
 * Command line: arguments -> config -> wire up -> serve. Commands:
 *   station-exporter [--config FILE] [--web.listen-address ADDR]   run (no config: the built-in simulator)
 *   station-exporter check-config FILE                              validate a config
 *   station-exporter once [--config FILE]                           one poll, exposition on stdout
 *   station-exporter simulate [...]                                 run the simulator (or replay)
 *   station-exporter record --config FILE --from T1 --to T2 --out DIR record the upstream for replay
 */
import { parseArgs } from 'node:util';
import { runCheckConfig, runOnce, runServe } from './app/commands.ts';
import { VERSION } from './app/wire.ts';
import { isListenAddress, LOG_LEVELS } from './config/schema.ts';

const USAGE = `Usage:
  station-exporter [--config FILE] [--web.listen-address ADDR] [--log.level LEVEL]
      Run the exporter. Without --config it runs against a built-in simulator (a demo).
  station-exporter check-config FILE
      Validate a config file: print every error and exit 2, or a summary and exit 0.
  station-exporter once [--config FILE]
      Poll everything once and print the exposition on stdout; exit 1 if the upstream
      cannot be reached, 2 for a bad config.
  station-exporter simulate [--port 8080 --seed 42 --token demo-token ...]
      Run the simulator of the Station Data Query Service (see 'simulate --help'); with
      --replay DIR [--shift-to-now] it serves a recording instead.
  station-exporter record --config FILE --from T1 --to T2 --out DIR
      Record sites, units, measurements and summaries from the upstream for replay.
  station-exporter --help | --version
`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'simulate') {
    const { runSimulatorCommand } = await import('./simulator/main.ts');
    await runSimulatorCommand(rest);
    return -1;
  }
  if (command === 'record') {
    const { runRecord } = await import('./app/record.ts');
    return runRecord(rest);
  }
  if (command === 'check-config') {
    if (rest.length !== 1 || rest[0]?.startsWith('-')) return usageError('check-config takes one FILE');
    return runCheckConfig(rest[0] ?? '');
  }
  const isOnce = command === 'once';
  let values: {
    config?: string;
    'web.listen-address'?: string;
    'log.level'?: string;
    help?: boolean;
    version?: boolean;
  };
  try {
    ({ values } = parseArgs({
      args: isOnce ? rest : argv,
      options: {
        config: { type: 'string', short: 'c' },
        'web.listen-address': { type: 'string' },
        'log.level': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    return usageError(err instanceof Error ? err.message : String(err));
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (values.version) {
    process.stdout.write(`station-exporter ${VERSION}\n`);
    return 0;
  }
  const level = values['log.level'];
  if (level !== undefined && !(LOG_LEVELS as readonly string[]).includes(level)) {
    return usageError(`--log.level must be one of ${LOG_LEVELS.join(', ')}, got "${level}"`);
  }
  const listen = values['web.listen-address'];
  if (listen !== undefined && !isListenAddress(listen)) {
    return usageError(`--web.listen-address must be host:port or :port, got "${listen}"`);
  }
  const opts = {
    configPath: values.config,
    listenAddress: values['web.listen-address'],
    logLevel: values['log.level'],
  };
  return isOnce ? runOnce(opts) : runServe(opts);
}

function usageError(message: string): number {
  process.stderr.write(`station-exporter: ${message}\n\n${USAGE}`);
  return 2;
}

const code = await main(process.argv.slice(2));
// -1: a server is running and will exit on a signal.
if (code >= 0) process.exitCode = code;
