/**
 * `station-exporter limits study|approve`: the Phase I loop of a quality engineer (study, exclude,
 * study again, approve). The work is loaded only when a command runs: the usage stays fast.
 */
import { parseArgs } from 'node:util';
import { LimitsUsageError } from './errors.ts';

export const LIMITS_USAGE = `Usage: station-exporter limits study (--config FILE | --replay DIR [--config FILE])
                    [--from T1 --to T2] [--name NAME ...] [--station ID|NAME ...] [--line ID|NAME ...]
                    [--limits FILE] [--out FILE]
       station-exporter limits approve --by NAME [--reason TEXT] [--chart SELECTOR ...] FILE

  study: the Phase I study of each chart (station, measurement name, slot) over [T1, T2):
  centre, sigma (moving range), limits, the points each Nelson rule, the CUSUM and the EWMA
  flag, an Anderson-Darling normality test, the lag-1 autocorrelation and the stretches of
  flagged points to look at. Prints a report and writes the limits file for review
  (approved_by and approved_at null). T1, T2: ISO 8601 with an offset, 'now', or e.g. -7d.
  --config FILE     the exporter's config: its upstream, and its control settings per name
  --replay DIR      read a recording (station-exporter record) instead of the upstream
  --name NAME       a measurement name (repeatable); default: the config's names that
                    measurements.control charts (with --replay alone: the recording's names)
  --station ID|NAME, --line ID|NAME   only these stations, lines (repeatable)
  --limits FILE     a limits file of an earlier study: its exclusions are applied, its
                    approvals kept where the numbers stay the same (dropped where they change),
                    its period used when --from and --to are left out
  --out FILE        where to write the file (default: the --limits FILE, else limits.yaml)

  approve: sets approved_by NAME and approved_at (now) on the chosen entries of FILE (default:
  all), and their reason when --reason is given. An entry left without a reason is refused,
  and then nothing is written.
  --chart SELECTOR  key=value pairs joined by commas (keys station, metric, slot, product),
                    e.g. --chart metric=vcc_3v3,slot=1 (repeatable)

  Exit 0: done; 1: the study's reads had failed requests (the file is written anyway);
  2: bad arguments, config, recording or limits file.
  -h, --help        show this help
`;

const STUDY_FLAGS = {
  config: { type: 'string', short: 'c' },
  replay: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  name: { type: 'string', multiple: true },
  station: { type: 'string', multiple: true },
  line: { type: 'string', multiple: true },
  limits: { type: 'string' },
  out: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

const APPROVE_FLAGS = {
  by: { type: 'string' },
  reason: { type: 'string' },
  chart: { type: 'string', multiple: true },
  help: { type: 'boolean', short: 'h' },
} as const;

function usage(): number {
  process.stdout.write(LIMITS_USAGE);
  return 0;
}

async function approve(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: APPROVE_FLAGS,
    strict: true,
    allowPositionals: true,
  });
  if (values.help) return usage();
  if (positionals.length !== 1) throw new LimitsUsageError('limits approve takes one FILE');
  const by = values.by?.trim() ?? '';
  // The exporter exports approved_by as a label value: short, plain text.
  if (by === '') throw new LimitsUsageError('--by NAME is required');
  if (by.length > 64 || /\p{Cc}/u.test(by))
    throw new LimitsUsageError('--by NAME must be at most 64 characters, without control characters');
  const { approveLimits, parseSelector } = await import('./approve.ts');
  const selectors = (values.chart ?? []).map(parseSelector);
  const file = positionals[0]!;
  const done = await approveLimits({ file, by, reason: values.reason, selectors, nowMs: Date.now() });
  process.stdout.write(`approved ${done.length} chart(s) in ${file} by ${by}\n`);
  return 0;
}

/** Errors the user can fix (by their names, so that checking them loads nothing): a message and exit code 2, no stack. */
const USER_ERRORS = new Set(['LimitsUsageError', 'LimitsFileError', 'ConfigError', 'RecordingError']);

function isUserError(err: unknown): err is Error {
  if (!(err instanceof Error)) return false;
  if (USER_ERRORS.has(err.name)) return true;
  // parseArgs' own errors, and the messages of parseTime and parseSelector.
  return (
    String((err as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS') ||
    /--chart|invalid time/.test(err.message)
  );
}

async function study(args: string[]): Promise<number> {
  const values = parseArgs({ args, options: STUDY_FLAGS, strict: true, allowPositionals: false }).values;
  if (values.help) return usage();
  return (await import('./run-study.ts')).runStudy(values);
}

async function dispatch(sub: string | undefined, rest: string[]): Promise<number> {
  if (sub === 'study') return study(rest);
  if (sub === 'approve') return approve(rest);
  if (sub === undefined) throw new LimitsUsageError('give a command: study or approve');
  if (sub === '--help' || sub === '-h' || sub === 'help') return usage();
  if (sub.startsWith('-')) throw new LimitsUsageError(`Unknown option '${sub}'`);
  throw new LimitsUsageError(`unknown limits command "${sub}": study or approve`);
}

/** `limits ...`; returns the exit code. */
export async function runLimits(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  try {
    return await dispatch(sub, rest);
  } catch (err) {
    if (!isUserError(err)) throw err;
    const usage = err.name === 'LimitsUsageError' || 'code' in err ? `\n${LIMITS_USAGE}` : '';
    process.stderr.write(`limits: ${err.message}\n${usage}`);
    return 2;
  }
}
