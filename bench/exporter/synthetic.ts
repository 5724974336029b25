/**
 * Synthetic render benchmark: exactly N series through `ExpositionCache.publish`, built the
 * way the summary collector builds them (LabelSets escaped once per station, `window`
 * appended, ten gauge families per level), so the render target is measured at 100k series
 * whatever size the simulated plant gives.
 */
import { summaryDescs } from '../../src/collectors/summary/families.ts';
import { ExpositionCache } from '../../src/exposition/cache.ts';
import { type Family, LabelSet, type Sample } from '../../src/exposition/model.ts';
import { renderFamiliesInto } from '../../src/exposition/render.ts';
import { runChild } from '../shared/child.ts';
import { withLoopMonitor } from '../shared/loop-delay.ts';
import type { MemoryLimit } from './memory-limit.ts';

const WINDOWS = ['15m', '1h', '8h', 'shift', 'today'];

/** Results of the synthetic render, warm: the median of several publishes. */
export interface SyntheticResult {
  readonly series: number;
  readonly stations: number;
  /** Rendering both text formats (text and OpenMetrics), yields excluded; median over the runs. */
  readonly renderMs: number;
  /** Rendering protobuf within the same publishes, yields excluded; median over the runs. */
  readonly protobufRenderMs: number;
  /** The text format's share of the same publishes (what protobuf is compared with); median. */
  readonly publishTextMs: number;
  /** Rendering the text format alone, yields excluded; median over the runs. */
  readonly textRenderMs: number;
  /** The first, cold publish's render time. */
  readonly firstRenderMs: number;
  /** Whole publish (render, UTF-8, deflate in the thread pool, swap); median. */
  readonly publishWallMs: number;
  /** Worst event-loop block over all runs. */
  readonly maxBlockMs: number;
  readonly textBytes: number;
  readonly protobufBytes: number;
  /** Gzipped bodies as served. */
  readonly textGzipBytes: number;
  readonly protobufGzipBytes: number;
  readonly runs: number;
  /** RSS of the process that built and published the series, after the last publish. */
  readonly rssBytes: number;
}

/** Stable pseudo-random values, so every run renders the same bytes. */
function valueAt(i: number, ratio: boolean): number {
  const x = Math.sin(i * 12.9898) * 43758.5453;
  const u = x - Math.floor(x);
  return ratio ? u : Math.floor(u * 5000);
}

/** Families holding exactly `series` samples (rounded down to whole stations × windows × fields). */
export function syntheticFamilies(series: number): { families: Family[]; stations: number } {
  const descs = summaryDescs('station');
  const stations = Math.floor(series / (descs.length * WINDOWS.length));
  const labels: LabelSet[] = [];
  for (let s = 0; s < stations; s++) {
    const site = `Plant ${s % 5}`;
    const line = `SMT Line ${Math.floor(s / 20) % 50}`;
    // The order and shape of src/topology/build.ts: a group label only on grouped stations.
    let base = LabelSet.of({ site, line })
      .with('station', `AOI ${s}`)
      .with('station_id', (0x5f0000000000 + s).toString(16).padStart(24, '0'));
    if (s % 3 === 0) base = base.with('group', `AOI Cell ${Math.floor(s / 3)}`);
    for (const w of WINDOWS) labels.push(base.with('window', w));
  }
  const families = descs.map((desc, f) => {
    const ratio = desc.name.endsWith('_ratio');
    const samples: Sample[] = labels.map((l, i) => ({ labels: l, value: valueAt(i * 16 + f, ratio) }));
    return { desc, samples };
  });
  return { families, stations };
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
}

/** Publishes the synthetic families `runs` times into one cache, as successive polls would. */
export async function runSynthetic(series: number, runs = 5): Promise<SyntheticResult> {
  const { families, stations } = syntheticFamilies(series);
  const cache = new ExpositionCache();
  // A protobuf scrape first, so that the publishes render protobuf too, as for a protobuf scraper.
  await cache.respond('protobuf', []);
  const render: number[] = [];
  const protobuf: number[] = [];
  const textPart: number[] = [];
  const wall: number[] = [];
  let maxBlockMs = 0;
  for (let i = 0; i < runs; i++) {
    const { value: wallMs, maxBlockMs: block } = await withLoopMonitor(async () => {
      const started = performance.now();
      await cache.publish('synthetic', families);
      return performance.now() - started;
    });
    wall.push(wallMs);
    const byFormat = cache.lastRenderMsByFormat();
    render.push(byFormat.text + byFormat.openmetrics);
    protobuf.push(byFormat.protobuf);
    textPart.push(byFormat.text);
    maxBlockMs = Math.max(maxBlockMs, block);
  }
  const textOnly: number[] = [];
  // The text render as the cache runs it, without the compression of its steps.
  const consume = async () => {};
  for (let i = 0; i < runs; i++)
    textOnly.push((await renderFamiliesInto(families, 'text', { consume })).busyMs);
  const text = await cache.respond('text', []);
  const pb = await cache.respond('protobuf', []);
  const textGzip = await cache.respond('text', [], { gzip: true });
  const pbGzip = await cache.respond('protobuf', [], { gzip: true });
  return {
    series: cache.seriesCount(),
    stations,
    renderMs: median(render),
    protobufRenderMs: median(protobuf),
    publishTextMs: median(textPart),
    textRenderMs: median(textOnly),
    firstRenderMs: render[0] ?? 0,
    publishWallMs: median(wall),
    maxBlockMs,
    textBytes: text.length,
    protobufBytes: pb.length,
    textGzipBytes: textGzip.length,
    protobufGzipBytes: pbGzip.length,
    runs,
    rssBytes: process.memoryUsage().rss,
  };
}

function isResult(msg: unknown): msg is SyntheticResult {
  return typeof msg === 'object' && msg !== null && 'renderMs' in msg && 'series' in msg;
}

/** {@link runSynthetic} in a child process, under `limit` when given (its cgroup is removed afterwards). */
export function runSyntheticChild(series: number, runs = 5, limit?: MemoryLimit): Promise<SyntheticResult> {
  return runChild(new URL('./synthetic-child.ts', import.meta.url), { series, runs }, isResult, limit);
}
