/**
 * `station-exporter limits study|approve`: the Phase I loop of a quality engineer. `study` reads
 * a period from the upstream (or a recording), prints each chart's Phase I result and writes a
 * limits file for review; excluded points with their cause are added to that file and the study
 * run again on it; `approve` then records who approved which charts, when and why.
 */
import { readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { parse } from 'yaml';
import { ConfigError, configFromObject, loadConfig } from '../../config/load.ts';
import type { Config } from '../../config/schema.ts';
import { startSimulatorServer } from '../../simulator/index.ts';
import { loadRecording, RecordingError } from '../../simulator/replay.ts';
import { parseTime } from '../record-upstream.ts';
import { approveLimits, type ChartSelector, parseSelector } from './approve.ts';
import { type LimitsFile, LimitsFileError, limitsYaml, readLimitsFile, rfc3339 } from './file.ts';
import { studyReport } from './report.ts';
import { readStudyData } from './source.ts';
import { periodOfFile, type StudyPeriod, studyAll } from './study.ts';

export const LIMITS_USAGE = `Usage: station-exporter limits study (--config FILE | --replay DIR [--config FILE])
                                       [--from T1 --to T2] [--name NAME ...] [--station ID|NAME ...]
                                       [--line ID|NAME ...] [--limits FILE] [--out FILE]
      Phase I study of each chart (station, measurement name, slot) over [T1, T2): centre,
      sigma (moving range), limits, the points each Nelson rule, the CUSUM and the EWMA flag,
      an Anderson-Darling normality test, the lag-1 autocorrelation and the stretches of
      flagged points to look at. Prints a report and writes the limits file for review
      (approved_by and approved_at null). T1 and T2: ISO 8601 with an offset, 'now', or -7d.
      --config FILE    the exporter's config: its upstream, and its control settings per name
      --replay DIR     read a recording (station-exporter record) instead of the upstream
      --name NAME      a measurement name (repeatable); default: the config's names that
                       measurements.control charts (with --replay alone: the recording's names)
      --station, --line   only these stations or lines (repeatable)
      --limits FILE    a limits file from an earlier study: its exclusions are applied, its
                       approvals kept where the numbers stay the same (dropped where they
                       change), its period used when --from/--to are not given
      --out FILE       where to write the file (default: the --limits FILE, else limits.yaml)
       station-exporter limits approve --by NAME [--reason TEXT] [--chart SELECTOR ...] FILE
      Set approved_by NAME and approved_at (now) on the chosen entries of FILE (default:
      all), and their reason when --reason is given. An entry left without a reason is
      refused, and then nothing is written.
      --chart SELECTOR   key=value pairs joined by commas (keys station, metric, slot,
                         product), e.g. --chart metric=vcc_3v3,slot=1 (repeatable)
  Exit 0: done; 1: the study read the upstream with failed requests (written anyway);
  2: bad arguments, config, recording or limits file.
  -h, --help   show this help
`;

class UsageError extends Error {}

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

/** The names a study reads: the ones asked for, else the configured names that are charted. */
function studyNames(config: Config, asked: readonly string[] | undefined): string[] {
  if (asked !== undefined && asked.length > 0) return [...asked];
  const { names, control } = config.measurements;
  return names.map((n) => n.name).filter((n) => control.names.some((c) => c.pattern.test(n)));
}

/** The study period: the flags, else the one the file passed in shares. */
function periodOf(values: { from?: string; to?: string }, previous: LimitsFile | undefined): StudyPeriod {
  const now = Date.now();
  if (values.from !== undefined && values.to !== undefined) {
    const period = { fromMs: parseTime(values.from, now), toMs: parseTime(values.to, now) };
    if (!(period.fromMs < period.toMs)) throw new UsageError('--from must be before --to');
    return period;
  }
  if (values.from !== undefined || values.to !== undefined) throw new UsageError('give both --from and --to');
  const shared = previous === undefined ? undefined : periodOfFile(previous);
  if (shared === undefined)
    throw new UsageError('--from and --to are required (unless every entry of --limits FILE has one period)');
  return shared;
}

/** A config for a recording served on `url`: the given config's settings, or defaults with the recording's names. */
async function replayConfig(url: string, opts: { file?: string; names: readonly string[] }): Promise<Config> {
  const upstream = { base_url: url, token: 'demo-token' };
  if (opts.file === undefined)
    return configFromObject(
      {
        upstream,
        measurements: {
          enabled: true,
          names: opts.names,
          control: { names: opts.names.map(literalPattern) },
        },
      },
      { baseDir: process.cwd(), source: 'replay' },
    );
  const raw = parse(await readFile(opts.file, 'utf8')) as Record<string, unknown>;
  const given = (raw.upstream ?? {}) as Record<string, unknown>;
  const { token: _t, token_file: _f, base_url: _b, ...rest } = given;
  return configFromObject(
    { ...raw, upstream: { ...rest, ...upstream } },
    { baseDir: path.dirname(path.resolve(opts.file)), source: opts.file },
  );
}

/** A name as a regular expression matching only itself. */
const literalPattern = (name: string) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

type StudyValues = ReturnType<typeof parseStudy>;
const parseStudy = (args: string[]) =>
  parseArgs({ args, options: STUDY_FLAGS, strict: true, allowPositionals: false }).values;

async function study(args: string[]): Promise<number> {
  const values: StudyValues = parseStudy(args);
  if (values.help) {
    process.stdout.write(LIMITS_USAGE);
    return 0;
  }
  if (values.config === undefined && values.replay === undefined)
    throw new UsageError('give --config FILE, --replay DIR, or both');
  const previous = values.limits === undefined ? undefined : await readLimitsFile(values.limits);
  const period = periodOf(values, previous);
  if (values.replay === undefined)
    return studyWith(await loadConfig(values.config!), { values, previous, period });
  const recording = await loadRecording(values.replay);
  const server = await startSimulatorServer({ replay: { recording, shiftToNow: false } });
  try {
    const names = values.name ?? recording.meta.measurementNames;
    const config = await replayConfig(server.url, { file: values.config, names });
    return await studyWith(config, { values, previous, period });
  } finally {
    await server.close();
  }
}

async function studyWith(
  config: Config,
  opts: { values: StudyValues; previous: LimitsFile | undefined; period: StudyPeriod },
): Promise<number> {
  const { values, previous, period } = opts;
  const names = studyNames(config, values.name);
  if (names.length === 0)
    throw new UsageError('no measurement name to study: give --name, or chart names in measurements.control');
  const data = await readStudyData(config, {
    names,
    stations: values.station ?? [],
    lines: values.line ?? [],
    ...period,
  });
  const { charts, file } = studyAll(data.series, { control: config.measurements.control, period, previous });
  const out = values.out ?? values.limits ?? 'limits.yaml';
  const header = `Phase I study ${rfc3339(period.fromMs)} .. ${rfc3339(period.toMs)}: ${charts.length} chart(s) of ${names.join(', ')}; limits file: ${out}\n`;
  process.stdout.write(studyReport(charts, header));
  const tmp = `${out}.tmp-${process.pid}`;
  await writeFile(tmp, limitsYaml(file));
  await rename(tmp, out);
  if (data.failures > 0) {
    process.stderr.write(
      `limits study: ${data.failures} requests failed for good: some charts miss points\n`,
    );
    return 1;
  }
  return 0;
}

async function approve(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: APPROVE_FLAGS,
    strict: true,
    allowPositionals: true,
  });
  if (values.help) {
    process.stdout.write(LIMITS_USAGE);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError('limits approve takes one FILE');
  if (!values.by?.trim()) throw new UsageError('--by NAME is required');
  const selectors: ChartSelector[] = (values.chart ?? []).map(parseSelector);
  const file = positionals[0]!;
  const done = await approveLimits({
    file,
    by: values.by.trim(),
    reason: values.reason,
    selectors,
    nowMs: Date.now(),
  });
  process.stdout.write(`approved ${done.length} chart(s) in ${file} by ${values.by.trim()}\n`);
  return 0;
}

/** Errors that are the user's to fix: a message and exit code 2, no stack. */
function isUserError(err: unknown): err is Error {
  if (
    err instanceof UsageError ||
    err instanceof LimitsFileError ||
    err instanceof ConfigError ||
    err instanceof RecordingError
  )
    return true;
  if (!(err instanceof Error)) return false;
  // parseArgs' own errors, and the messages of parseTime and parseSelector.
  return (
    String((err as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS') ||
    /--chart|invalid time/.test(err.message)
  );
}

async function dispatch(sub: string | undefined, rest: string[]): Promise<number> {
  if (sub === 'study') return study(rest);
  if (sub === 'approve') return approve(rest);
  if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
    process.stdout.write(LIMITS_USAGE);
    return sub === undefined ? 2 : 0;
  }
  if (sub.startsWith('-')) throw new UsageError(`Unknown option '${sub}'`);
  throw new UsageError(`unknown limits command "${sub}": study or approve`);
}

/** `limits ...`; returns the exit code. */
export async function runLimits(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  try {
    return await dispatch(sub, rest);
  } catch (err) {
    if (!isUserError(err)) throw err;
    const usage = err instanceof UsageError || 'code' in err ? `\n${LIMITS_USAGE}` : '';
    process.stderr.write(`limits: ${err.message}\n${usage}`);
    return 2;
  }
}
