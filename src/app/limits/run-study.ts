/** `limits study` once its flags are parsed; loaded only when a study runs, so `--help` stays fast. */
import { readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'yaml';
import { configFromObject, loadConfig } from '../../config/load.ts';
import type { Config } from '../../config/schema.ts';
import { startSimulatorServer } from '../../simulator/index.ts';
import { loadRecording } from '../../simulator/replay.ts';
import { parseTime } from '../record-upstream.ts';
import { LimitsUsageError } from './errors.ts';
import { type LimitsFile, limitsYaml, readLimitsFile, rfc3339 } from './file.ts';
import { studyReport } from './report.ts';
import { readStudyData } from './source.ts';
import { periodOfFile, type StudyPeriod, studyAll } from './study.ts';

/** The flags of `limits study`, parsed. */
export type StudyValues = Readonly<
  Partial<Record<'config' | 'replay' | 'from' | 'to' | 'limits' | 'out', string>> &
    Partial<Record<'name' | 'station' | 'line', string[]>>
>;

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
    if (!(period.fromMs < period.toMs)) throw new LimitsUsageError('--from must be before --to');
    return period;
  }
  if (values.from !== undefined || values.to !== undefined)
    throw new LimitsUsageError('give both --from and --to');
  const shared = previous === undefined ? undefined : periodOfFile(previous);
  if (shared === undefined)
    throw new LimitsUsageError(
      '--from and --to are required (unless every entry of --limits FILE has one period)',
    );
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

/** Runs a study with parsed flags; returns the exit code. */
export async function runStudy(values: StudyValues): Promise<number> {
  if (values.config === undefined && values.replay === undefined)
    throw new LimitsUsageError('give --config FILE, --replay DIR, or both');
  const previous = values.limits === undefined ? undefined : await readLimitsFile(values.limits);
  const period = periodOf(values, previous);
  if (values.replay === undefined)
    return studyWith(await loadConfig(values.config!), { values, previous, period });
  const recording = await loadRecording(values.replay);
  // Served as of its end at the earliest: a study sees the whole recording whatever the clock says.
  const end = Date.parse(recording.meta.to);
  const server = await startSimulatorServer({
    replay: { recording, shiftToNow: false },
    now: () => Math.max(Date.now(), end),
  });
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
    throw new LimitsUsageError(
      'no measurement name to study: give --name, or chart names in measurements.control',
    );
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
  await writeFile(tmp, limitsYaml(file, out));
  await rename(tmp, out);
  if (data.failures > 0) {
    process.stderr.write(
      `limits study: ${data.failures} requests failed for good: some charts miss points\n`,
    );
    return 1;
  }
  return 0;
}
