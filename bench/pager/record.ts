/**
 * Records what Prometheus would have scraped: the exporter, wired as the command line wires it,
 * polls the simulator on a simulated clock, and every scrape interval its OpenMetrics exposition
 * (data and self-metrics) is appended to a file with the scrape's timestamp, the target labels
 * `job` and `instance`, and the `up` series Prometheus adds. Only the families the rules read
 * are kept, which keeps the file (and the backfill) small without changing any alert. The
 * simulator runs in the same process and answers through an in-process dispatcher
 * (direct-dispatcher.ts): the exporter's client stack is the real one, only the socket is gone.
 *
 * Faults arrive at chosen instants: a run-time scenario patch of the simulator, or the exporter
 * stopping (scrapes then record `up 0` and nothing else). Prometheus would also write staleness
 * markers for the vanished series; a backfill cannot, so they linger for the 5-minute lookback.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import pino from 'pino';
import { type Exporter, wireExporter } from '../../src/app/wire.ts';
import { configFromObject } from '../../src/config/load.ts';
import { Registry } from '../../src/exposition/client.ts';
import { registryFamilies } from '../../src/exposition/registry-families.ts';
import { createSimulator } from '../../src/simulator/create.ts';
import type { ProcessScenario } from '../../src/simulator/process-events.ts';
import type { PlantScale, Scenario, SimulatorOptions } from '../../src/simulator/types.ts';
import { DirectDispatcher } from './direct-dispatcher.ts';

const MIN = 60_000;
/** The upstream's address as the exporter sees it; nothing listens there (the dispatcher is in-process). */
const SIM_URL = 'http://simulator.bench.invalid';

/** The target labels every sample gets, as the scrape job of prometheus.example.yml adds them. */
export const TARGET = { job: 'station-exporter', instance: 'bench:9732' } as const;

/** A change at an instant of the run. */
export type TimedFault =
  | { readonly atMs: number; readonly kind: 'scenario'; readonly patch: Partial<Scenario> }
  | { readonly atMs: number; readonly kind: 'exporter-stop' };

/** One recording. */
export interface RecordSpec {
  readonly seed: number;
  readonly scale: PlantScale;
  /**
   * The simulator's healthy plant: 'textbook', or 'realistic' (autocorrelated and skewed
   * measurements, several products a line, lines at their targets ± 1 point, stops; the
   * simulator's `plant` option, docs/simulator.md). Absent: the simulator's default.
   */
  readonly plant?: string;
  /** Measurement names with control charts (and exported). */
  readonly names: readonly string[];
  readonly startMs: number;
  readonly endMs: number;
  /** Scrape interval (ms), also Prometheus's `up` cadence. */
  readonly scrapeMs: number;
  /** Collector interval (ms): every collector polls this often. */
  readonly pollMs: number;
  /**
   * The record collectors' `reread_interval` (ms); the exporter's default (1h) when absent. The
   * re-read sweep only finds records that arrived later than the 5-minute overlap, and the
   * simulator has none (its insert lag is at most 5 s), so the recording does not depend on it
   * (test/bench/pager/record.e2e.test.ts); it costs a week of measurement records decoded an hour.
   */
  readonly rereadMs?: number;
  readonly process?: ProcessScenario;
  readonly faults?: readonly TimedFault[];
  /** What the alerts read: per metric name, the equality matchers of its selectors; other samples are left out. */
  readonly keep: Keep;
  readonly out: string;
  readonly progress?: (text: string) => void;
}

/** Per metric name, the equality matchers of the selectors that read it (an empty one: all its samples). */
export type Keep = ReadonlyMap<string, ReadonlyArray<Readonly<Record<string, string>>>>;

const SUFFIXES = ['', '_total', '_bucket', '_count', '_sum', '_created', '_info'];

function keptFamily(keep: Keep, family: string): boolean {
  return SUFFIXES.some((s) => keep.has(family + s));
}

/** Whether a sample line (name and labels) is read by one of its name's selectors. */
function keptSample(keep: Keep, sample: string): boolean {
  const brace = sample.indexOf('{');
  const space = sample.indexOf(' ');
  const name = sample.slice(0, brace >= 0 && brace < space ? brace : space);
  const selectors = keep.get(name);
  if (selectors === undefined) return false;
  return selectors.some((eq) => Object.entries(eq).every(([k, v]) => (labelValue(sample, k) ?? '') === v));
}

const labelPatterns = new Map<string, RegExp>();

/** The value of label `k` of a sample line, or undefined without it (which PromQL reads as ""). */
function labelValue(sample: string, k: string): string | undefined {
  let re = labelPatterns.get(k);
  if (re === undefined) {
    re = new RegExp(`[{,]${k}="((?:[^"\\\\]|\\\\.)*)"`);
    labelPatterns.set(k, re);
  }
  return re.exec(sample)?.[1];
}

/**
 * One exposition's sample lines with target labels and a timestamp, for the families kept.
 * Exemplars are dropped (they would sit before the timestamp). `seen` (optional) keeps each
 * series' decision and labelled name between calls: the same series come at every scrape.
 */
export function stampExposition(
  text: string,
  opts: { readonly keep: Keep; readonly atMs: number; readonly seen?: Map<string, string | null> },
): string {
  const out: string[] = [];
  const ts = (opts.atMs / 1000).toFixed(3);
  const seen = opts.seen ?? new Map<string, string | null>();
  let keepFamily = false;
  for (const line of text.split('\n')) {
    if (line === '' || line === '# EOF') continue;
    if (line.startsWith('#')) {
      const m = /^# (TYPE|HELP|UNIT) (\S+)/.exec(line);
      if (m?.[1] === 'TYPE') keepFamily = keptFamily(opts.keep, m[2] ?? '');
      if (keepFamily) out.push(line);
      continue;
    }
    if (!keepFamily) continue;
    const sample = line.includes(' # {') ? line.replace(/ # \{[^}]*\} \S+(?: \S+)?$/, '') : line;
    // The series is everything before the value: the last space of the sample.
    const cut = sample.lastIndexOf(' ');
    const series = sample.slice(0, cut);
    let labelled = seen.get(series);
    if (labelled === undefined) {
      labelled = keptSample(opts.keep, sample) ? withTarget(series) : null;
      if (seen.size > 1_000_000) seen.clear();
      seen.set(series, labelled);
    }
    if (labelled !== null) out.push(`${labelled}${sample.slice(cut)} ${ts}`);
  }
  return out.length > 0 ? `${out.join('\n')}\n` : '';
}

/** A series (name and labels) with the target labels added. */
function withTarget(series: string): string {
  const target = `job="${TARGET.job}",instance="${TARGET.instance}"`;
  const brace = series.indexOf('{');
  if (brace < 0) return `${series}{${target}}`;
  return `${series.slice(0, brace + 1)}${target}${series[brace + 1] === '}' ? '' : ','}${series.slice(brace + 1)}`;
}

function upLines(atMs: number, up: 0 | 1): string {
  return `# TYPE up gauge\nup{job="${TARGET.job}",instance="${TARGET.instance}"} ${up} ${(atMs / 1000).toFixed(3)}\n`;
}

async function write(stream: WriteStream, text: string): Promise<void> {
  if (!stream.write(text)) await new Promise<void>((r) => stream.once('drain', () => r()));
}

/** The exporter's config: every collector on, control charts on `names`, all on one interval. */
function exporterConfig(spec: RecordSpec, url: string) {
  const interval = `${spec.pollMs / 1000}s`;
  const reread = spec.rereadMs === undefined ? {} : { reread_interval: `${spec.rereadMs / 1000}s` };
  return configFromObject(
    {
      upstream: { base_url: url, token: 'bench-token', max_requests_per_second: 100_000, concurrency: 8 },
      summary: { interval },
      units: { interval, ...reread },
      measurements: {
        enabled: true,
        interval,
        names: [...spec.names],
        control: { names: [...spec.names] },
        ...reread,
      },
      log: { level: 'error' },
    },
    { baseDir: process.cwd(), source: 'bench:pager' },
  );
}

/**
 * The simulator's `plant` option for `plant`: none for the textbook plant (the simulator's default
 * and only plant where it has no such option), else passed through as given.
 */
export function plantOption(plant: string | undefined): Pick<SimulatorOptions, 'plant'> {
  if (plant === undefined || plant === 'textbook') return {};
  if (plant === 'realistic') return { plant };
  throw new Error(`--plant: expected textbook or realistic, got "${plant}"`);
}

/** What one recording produced. */
export interface RecordResult {
  readonly scrapes: number;
  readonly polls: number;
  readonly bytes: number;
  readonly wallSeconds: number;
  /** CPU time of this process while recording (user + system): the measure on a shared machine. */
  readonly cpuSeconds: number;
}

/** Runs the exporter against the simulator from `startMs` to `endMs` and writes the OpenMetrics file. */
export async function record(spec: RecordSpec): Promise<RecordResult> {
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  const cpu = () => {
    const u = process.cpuUsage(cpuStarted);
    return (u.user + u.system) / 1e6;
  };
  let now = spec.startMs;
  const clock = () => now;
  const sim = createSimulator({
    seed: spec.seed,
    now: clock,
    scale: spec.scale,
    tokens: { 'bench-token': { sites: 'all' } },
    process: spec.process,
    // The longest window asked is the 24h summary: its units and their walk time (about an hour).
    unitMemoHours: 26,
    ...plantOption(spec.plant),
  });
  if (spec.plant === 'realistic' && !('realistic' in sim) && !('realisticDesign' in sim))
    throw new Error('this simulator has no realistic plant (its `plant` option)');
  // In-process: the simulator's app answers each request without a socket (direct-dispatcher.ts).
  const dispatcher = new DirectDispatcher((req) => sim.app.fetch(req), SIM_URL);
  const registry = new Registry();
  const exporter: Exporter = wireExporter(exporterConfig(spec, SIM_URL), {
    wallClock: clock,
    registry,
    logger: pino({ level: 'silent' }),
    dispatcher,
  });
  const stream = createWriteStream(spec.out);
  const faults = [...(spec.faults ?? [])].sort((a, b) => a.atMs - b.atMs);
  let stopped = false;
  let scrapes = 0;
  let polls = 0;
  let bytes = 0;
  let lastPoll = Number.NEGATIVE_INFINITY;
  let hourCpu = 0;
  const seen = new Map<string, string | null>();
  try {
    for (; now <= spec.endMs; now += spec.scrapeMs) {
      while (faults.length > 0 && (faults[0]?.atMs ?? 0) <= now) {
        const f = faults.shift();
        if (f?.kind === 'scenario') sim.setScenario(f.patch);
        if (f?.kind === 'exporter-stop') stopped = true;
      }
      let text: string;
      if (stopped) text = upLines(now, 0);
      else {
        if (now - lastPoll >= spec.pollMs) {
          await exporter.scheduler.pollOnce();
          lastPoll = now;
          polls++;
        }
        const res = await exporter.cache.respond('openmetrics', await registryFamilies(registry));
        text =
          upLines(now, 1) + stampExposition(res.body.toString('utf8'), { keep: spec.keep, atMs: now, seen });
      }
      // The simulator keeps every request it answered (for tests): a week of polls would hold
      // millions of them, for nothing here.
      sim.clearRequests();
      bytes += text.length;
      scrapes++;
      await write(stream, text);
      if (scrapes % 60 === 0) {
        // The last hour's CPU apart: the first poll (history replayed at start) costs more.
        const c = cpu();
        spec.progress?.(
          `  recorded ${((now - spec.startMs) / 3_600_000).toFixed(0)} h of ${((spec.endMs - spec.startMs) / 3_600_000).toFixed(0)} (${((performance.now() - started) / 1000).toFixed(0)} s, CPU ${c.toFixed(0)} s, this hour ${(c - hourCpu).toFixed(1)} s)`,
        );
        hourCpu = c;
      }
    }
    await write(stream, '# EOF\n');
  } finally {
    await new Promise((r) => stream.end(r));
    await exporter.close();
    await dispatcher.close();
  }
  return { scrapes, polls, bytes, wallSeconds: (performance.now() - started) / 1000, cpuSeconds: cpu() };
}

/** Minutes, for callers. */
export const minutes = (n: number) => n * MIN;
