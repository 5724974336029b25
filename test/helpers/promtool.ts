/**
 * Locates promtool for tests that validate exposition output. Tests use
 * `it.skipIf(!promtoolPath() && !process.env.CI)`, so a missing promtool fails under CI.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';

/** Path of an executable promtool: $PROMTOOL, else the first one on $PATH; undefined when absent. */
export function promtoolPath(): string | undefined {
  const candidates = [
    process.env.PROMTOOL,
    ...(process.env.PATH ?? '').split(path.delimiter).map((dir) => dir && path.join(dir, 'promtool')),
  ];
  for (const c of candidates) {
    if (!c) continue;
    try {
      accessSync(c, constants.X_OK);
      return c;
    } catch {
      // Not there or not executable: try the next one.
    }
  }
  return undefined;
}

/** Result of `promtool check metrics`: exit status 0 and no lint output means accepted. */
export interface PromtoolResult {
  readonly ok: boolean;
  readonly output: string;
}

/** Feeds exposition text to `promtool check metrics` on stdin. Throws when promtool is missing. */
export function checkMetrics(text: string): PromtoolResult {
  const bin = promtoolPath();
  if (!bin) throw new Error('promtool not found (set PROMTOOL or put it on PATH)');
  const r = spawnSync(bin, ['check', 'metrics'], { input: text, encoding: 'utf8' });
  const output = `${r.stdout ?? ''}${r.stderr ?? ''}`.trim();
  return { ok: r.status === 0 && output === '', output };
}

/** The scrape settings Prometheus 3 has and promtool 2.42 refuses as unknown fields. */
const PROMETHEUS_3_SCRAPE_KEYS = ['scrape_native_histograms', 'scrape_protocols'] as const;

/** `scrape_protocols` values of Prometheus 3's configuration reference. */
const SCRAPE_PROTOCOLS = [
  'PrometheusProto',
  'OpenMetricsText0.0.1',
  'OpenMetricsText1.0.0',
  'PrometheusText0.0.4',
  'PrometheusText1.0.0',
];

/**
 * Checks a Prometheus 3 config with the only promtool here (2.42): the 3.x-only scrape keys are
 * checked against Prometheus 3's documented values and removed, and the rest goes through
 * `promtool check config` from a copy beside the original (rule file paths are relative to it).
 * Returns the 3.x keys of each scrape job, for the caller's own assertions.
 */
export function checkPrometheus3Config(file: string): {
  result: PromtoolResult;
  jobs: Array<Record<string, unknown>>;
} {
  const bin = promtoolPath();
  if (!bin) throw new Error('promtool not found (set PROMTOOL or put it on PATH)');
  const doc = parseYaml(readFileSync(file, 'utf8')) as { scrape_configs?: Array<Record<string, unknown>> };
  const jobs: Array<Record<string, unknown>> = [];
  for (const job of doc.scrape_configs ?? []) {
    const own: Record<string, unknown> = {};
    for (const key of PROMETHEUS_3_SCRAPE_KEYS) {
      if (!(key in job)) continue;
      own[key] = job[key];
      delete job[key];
    }
    if (own.scrape_native_histograms !== undefined && typeof own.scrape_native_histograms !== 'boolean')
      throw new Error(`${file}: scrape_native_histograms must be true or false`);
    for (const p of (own.scrape_protocols as string[] | undefined) ?? [])
      if (!SCRAPE_PROTOCOLS.includes(p)) throw new Error(`${file}: unknown scrape protocol ${p}`);
    jobs.push(own);
  }
  const copy = path.join(path.dirname(file), `.promtool-2-${path.basename(file)}`);
  writeFileSync(copy, stringifyYaml(doc));
  try {
    const r = spawnSync(bin, ['check', 'config', copy], { encoding: 'utf8' });
    return { result: { ok: r.status === 0, output: `${r.stdout ?? ''}${r.stderr ?? ''}` }, jobs };
  } finally {
    rmSync(copy, { force: true });
  }
}
