/**
 * The rows of `npm run bench`'s results (bench/results/exporter.json): each figure with its unit,
 * the details beside it, and its target where it has one. Targets are reported, never enforced.
 */

import { throughput } from '../load/loadgen.ts';
import * as f from '../shared/format.ts';
import type { GcPause } from '../shared/loop-delay.ts';
import type { MemoryReading, SizedRunResult } from '../shared/protocol.ts';
import type { ResultRow } from '../shared/results.ts';
import type { PartRender, PollResult } from './polls.ts';
import type { BenchParams } from './scale.ts';
import type { ScrapeRow } from './scrape.ts';
import type { SyntheticResult } from './synthetic.ts';

/** The targets the exporter is held to at plant scale (docs/scaling.md). */
export const TARGETS = {
  /** Both text formats of 100k series, in one publish. */
  renderMs: 120,
  renderSeries: 100_000,
  /** A scrape that arrives during a block waits that long. */
  loopBlockMs: 100,
  scrapeRatio: 0.8,
  gzipScrapeRatio: 0.9,
  /** The exporter alone at 100k series under the StatefulSet's memory limit. */
  rssBytes: 200 * 2 ** 20,
  /** The same without a memory limit (the binary's heap ceiling applies). */
  rssUnlimitedBytes: 250 * 2 ** 20,
  steadyBytesRatio: 0.05,
  /** Protobuf render time over the text format's, in the same publishes. */
  protobufRatio: 1.2,
} as const;

/** Everything one run measured. */
export interface BenchResults {
  readonly params: BenchParams;
  /** Node flags and allocator settings of the benchmark process (the exporter polled in it). */
  readonly settings: string;
  readonly first: PollResult;
  readonly steady: PollResult;
  readonly series: number;
  /** Latest publish per part, from the steady-state poll. */
  readonly renders: ReadonlyMap<string, PartRender>;
  /** `process.memoryUsage()` right after the steady-state poll. */
  readonly memory: NodeJS.MemoryUsage;
  /** RSS before the exporter was wired: node, tsx (and its loader thread) and the loaded modules. */
  readonly startRssBytes: number;
  readonly sim: { readonly rssBytes: number; readonly pid?: number | undefined };
  readonly scrapes: readonly ScrapeRow[];
  readonly scrapeMaxBlockMs: number;
  /** The measurements-only exporter with a shorter longest window; absent without that collector. */
  readonly compare?: { readonly first: PollResult; readonly steady: PollResult };
  /** The synthetic render as shipped: in its own process under the StatefulSet's memory limit. */
  readonly synthetic: SyntheticResult;
  /** The same synthetic render without a memory limit, when it was run. */
  readonly syntheticUnlimited?: SyntheticResult;
  /** The exporter alone, in its own process, at about the target's series count. */
  readonly sized?: {
    /** As shipped: under the StatefulSet's memory limit. */
    readonly limited: SizedRunResult;
    /** The same run without a memory limit, on this machine. */
    readonly unlimited: SizedRunResult;
    readonly limitMiB: number;
    /** How the limit was applied (a cgroup, or the equivalent heap flag). */
    readonly how: string;
  };
}

function longest(windows: readonly string[]): string {
  return windows[windows.length - 1] ?? '';
}

/** A garbage-collection pause for a row: its length and kind. */
function gcPause(p: GcPause): string {
  return p.ms > 0 ? `${f.ms(p.ms)} ${p.kind}` : 'none';
}

const MiB = 2 ** 20;
const atMost = (bound: number) => ({ op: '<=', bound }) as const;
const atLeast = (bound: number) => ({ op: '>=', bound }) as const;

function pollRows(label: string, poll: PollResult): ResultRow[] {
  const rows: ResultRow[] = [
    {
      measure: `${label}: all collectors`,
      value: poll.wallMs / 1000,
      unit: 's',
      detail:
        `${f.count(poll.requests)} requests, ${f.bytes(poll.bytes)}; ` +
        `CPU: exporter ${f.ms(poll.exporterCpuMs)}, simulator ${f.ms(poll.simCpuMs)}`,
    },
  ];
  for (const c of poll.collectors) {
    rows.push({
      measure: `${label}: ${c.name}`,
      value: c.wallMs,
      unit: 'ms',
      detail: `${f.count(c.requests)} requests, ${f.bytes(c.bytes)}${c.ok ? '' : ' (had failures)'}`,
    });
  }
  return rows;
}

function collectorOf(poll: PollResult | undefined, name: string) {
  return poll?.collectors.find((c) => c.name === name);
}

function steadyRows(r: BenchResults): ResultRow[] {
  const first = collectorOf(r.first, 'measurements');
  const steady = collectorOf(r.steady, 'measurements');
  const measure = `Steady-state measurements bytes over the first poll's (longest window ${longest(r.params.windows)})`;
  const target = atMost(TARGETS.steadyBytesRatio * 100);
  if (!first || !steady) {
    return [
      { measure, value: undefined, unit: '%', detail: 'the measurements collector is not enabled', target },
    ];
  }
  const rows: ResultRow[] = [
    {
      measure,
      value: first.bytes > 0 ? (steady.bytes / first.bytes) * 100 : undefined,
      unit: '%',
      detail: `${f.bytes(steady.bytes)} / ${f.bytes(first.bytes)}`,
      target,
    },
  ];
  const cf = collectorOf(r.compare?.first, 'measurements');
  const cs = collectorOf(r.compare?.steady, 'measurements');
  if (cf && cs) {
    const w1 = longest(r.params.windows);
    const w2 = longest(r.params.compareWindows);
    rows.push({
      measure: `Measurements bytes of the first poll, longest window ${w1} over ${w2}`,
      value: first.bytes / Math.max(1, cf.bytes),
      unit: '×',
      detail: `${f.bytes(first.bytes)} vs ${f.bytes(cf.bytes)} (grows with the window)`,
    });
    rows.push({
      measure: `Measurements bytes of the steady-state poll, longest window ${w1} over ${w2}`,
      value: steady.bytes / Math.max(1, cs.bytes),
      unit: '×',
      detail: `${f.bytes(steady.bytes)} vs ${f.bytes(cs.bytes)} (should stay near 1)`,
    });
  }
  return rows;
}

function exporterRenderRow(r: BenchResults): ResultRow {
  let renderMs = 0;
  let protobufMs = 0;
  let wallMs = 0;
  const parts: string[] = [];
  for (const [part, pr] of [...r.renders].sort(([a], [b]) => a.localeCompare(b))) {
    renderMs += pr.renderMs;
    protobufMs += pr.protobufRenderMs;
    wallMs += pr.wallMs;
    parts.push(`${part} ${f.count(pr.series)}`);
  }
  // Rendering is linear in the series count, so a plant of another size is evaluated per 100k.
  return {
    measure: `Exposition render, exporter (${f.count(r.series)} series: ${parts.join(', ')}), both text formats`,
    value: r.series > 0 ? (renderMs * TARGETS.renderSeries) / r.series : undefined,
    unit: 'ms per 100k series',
    detail: `${f.ms(renderMs)} in all; protobuf ${f.ms(protobufMs)}, which also carries the native histograms and the exemplars (publish of all three incl. gzip ${f.ms(wallMs)})`,
    target: atMost(TARGETS.renderMs),
  };
}

/** The synthetic render counts only at the target's series count. */
const syntheticMs = (s: SyntheticResult) => (s.series >= TARGETS.renderSeries ? s.renderMs : undefined);

function renderRows(r: BenchResults): ResultRow[] {
  const s = r.synthetic;
  const u = r.syntheticUnlimited;
  return [
    exporterRenderRow(r),
    {
      measure: `Synthetic render, ${f.count(s.series)} series through ExpositionCache.publish (median of ${s.runs}), both text formats, under the memory limit`,
      value: syntheticMs(s),
      unit: 'ms',
      detail: `text alone ${f.ms(s.textRenderMs)} (cold ${f.ms(s.firstRenderMs)}; publish of all three formats incl. gzip ${f.ms(s.publishWallMs)}; text body ${f.bytes(s.textBytes)})`,
      target: atMost(TARGETS.renderMs),
    },
    {
      measure: `Protobuf render over the text format's, the same ${f.count(s.series)} series in the same publishes`,
      value: s.protobufRenderMs / Math.max(1e-9, s.publishTextMs),
      unit: '×',
      detail: `${f.ms(s.protobufRenderMs)} vs ${f.ms(s.publishTextMs)}; body ${f.bytes(s.protobufBytes)} vs ${f.bytes(s.textBytes)}, gzipped ${f.bytes(s.protobufGzipBytes)} vs ${f.bytes(s.textGzipBytes)}`,
      target: atMost(TARGETS.protobufRatio),
    },
    ...(u
      ? [
          {
            measure: `Synthetic render, the same without a memory limit (median of ${u.runs})`,
            value: syntheticMs(u),
            unit: 'ms',
            detail: `text alone ${f.ms(u.textRenderMs)} (cold ${f.ms(u.firstRenderMs)})`,
            target: atMost(TARGETS.renderMs),
          },
        ]
      : []),
    {
      measure: 'Synthetic render: worst event-loop block',
      value: s.maxBlockMs,
      unit: 'ms',
      target: atMost(TARGETS.loopBlockMs),
    },
  ];
}

function loopRow(r: BenchResults): ResultRow {
  return {
    measure: 'Worst event-loop block, exporter: polls + render + scrapes',
    value: Math.max(r.first.maxBlockMs, r.steady.maxBlockMs, r.scrapeMaxBlockMs),
    unit: 'ms',
    detail: `first poll ${f.ms(r.first.maxBlockMs)}, steady ${f.ms(r.steady.maxBlockMs)}, scrapes ${f.ms(r.scrapeMaxBlockMs)}; longest GC pause in the first poll ${gcPause(r.first.longestGc)}, in the steady ${gcPause(r.steady.longestGc)}`,
    target: atMost(TARGETS.loopBlockMs),
  };
}

function scrapeRows(r: BenchResults): ResultRow[] {
  const rows = r.scrapes.map((s): ResultRow => {
    const lat = (x: typeof s.exporter) => `p50 ${f.ms(x.latencyMs.p50)} / p99 ${f.ms(x.latencyMs.p99)}`;
    // Plant scale asks more of the gzip path, the one Prometheus uses.
    const target = s.encoding === 'gzip' ? TARGETS.gzipScrapeRatio : TARGETS.scrapeRatio;
    return {
      measure: `/metrics scrape throughput over a bare server's, ${s.encoding} (${f.bytes(s.bodyBytes)} body, ${r.params.load.connections} keep-alive connections, median of ${r.params.load.rounds} alternating rounds)`,
      value: s.ratio,
      unit: '×',
      detail:
        `exporter ${throughput(s.exporter).toFixed(1)}/s ${lat(s.exporter)}; ` +
        `bare node:http ${throughput(s.bare).toFixed(1)}/s ${lat(s.bare)}; ` +
        `worst event-loop block in the exporter's turns ${f.ms(s.maxBlockMs)}, in the bare server's ${f.ms(s.bareMaxBlockMs)}`,
      target: atLeast(target),
    };
  });
  const errors = r.scrapes.reduce((n, s) => n + s.exporter.errors + s.bare.errors, 0);
  return [
    ...rows,
    { measure: '/metrics scrapes failed', value: errors, unit: 'requests', target: atMost(0) },
  ];
}

function memoryRows(r: BenchResults): ResultRow[] {
  return [
    {
      measure: `RSS after the steady-state poll (exporter and bench in one process, ${f.count(r.series)} series)`,
      value: r.memory.rss / MiB,
      unit: 'MiB',
      detail: `at start ${f.mib(r.startRssBytes)}; V8 heap ${f.mib(r.memory.heapUsed)} used of ${f.mib(r.memory.heapTotal)}, array buffers ${f.mib(r.memory.arrayBuffers)}`,
    },
    ...(r.sized ? sizedRows(r.sized) : []),
    {
      measure: `RSS, synthetic ${f.count(r.synthetic.series)} series (cache only, own process under tsx, same memory limit)`,
      value: r.synthetic.rssBytes / MiB,
      unit: 'MiB',
      ...(r.syntheticUnlimited ? { detail: `without a limit: ${f.mib(r.syntheticUnlimited.rssBytes)}` } : {}),
      target: atMost(TARGETS.rssBytes / MiB),
    },
  ];
}

/** All rows of the main run. */
export function resultRows(r: BenchResults): ResultRow[] {
  return [
    ...pollRows('First poll', r.first),
    ...pollRows(`Steady-state poll (+${r.params.intervalMs / 1000} s)`, r.steady),
    ...steadyRows(r),
    ...renderRows(r),
    loopRow(r),
    ...scrapeRows(r),
    ...memoryRows(r),
  ];
}

/** A reading's figures, for the detail column. */
function describeReading(x: MemoryReading): string {
  return `V8 heap ${f.mib(x.heapUsedBytes)} used of ${f.mib(x.heapTotalBytes)}, array buffers ${f.mib(x.arrayBuffersBytes)}`;
}

function sizedRows(s: NonNullable<BenchResults['sized']>): ResultRow[] {
  const run = (r: SizedRunResult) => {
    const after = r.readings.filter((x) => x.at !== 'start');
    const top = after.reduce((a, b) => (b.rssBytes > a.rssBytes ? b : a));
    const low = after.reduce((a, b) => (b.rssBytes < a.rssBytes ? b : a));
    return { top, detail: `${top.at}; ${describeReading(top)}; lowest ${f.mib(low.rssBytes)}` };
  };
  const limited = run(s.limited);
  const unlimited = run(s.unlimited);
  const what = `${f.count(s.limited.stations)} stations, ${f.count(s.limited.series)} series, bundled as it ships, first poll then ${s.limited.steadyPolls} steady-state polls with ${s.limited.idleMs / 1000} s idle after each`;
  return [
    {
      measure: `RSS of the exporter alone, highest reading, as shipped: ${s.limitMiB} MiB memory limit of deploy/kubernetes (${what})`,
      value: limited.top.rssBytes / MiB,
      unit: 'MiB',
      detail: `${limited.detail}; limit applied as ${s.how}`,
      target: atMost(TARGETS.rssBytes / MiB),
    },
    {
      measure:
        'RSS of the exporter alone, highest reading, the same run without a memory limit (with the heap ceiling and malloc settings bin/station-exporter.js applies)',
      value: unlimited.top.rssBytes / MiB,
      unit: 'MiB',
      detail: unlimited.detail,
      target: atMost(TARGETS.rssUnlimitedBytes / MiB),
    },
  ];
}
