/**
 * A per-snapshot cache of rendered exposition bytes.
 *
 * Each collector publishes a whole part (its families for one snapshot). A publish renders
 * the part in both formats and deflates it once; a scrape only renders and deflates the
 * small dynamic tail (self-metrics) and splices it after the cached static bytes. The gzip
 * body is one gzip member: header + static raw deflate (ended by a sync flush, so the
 * tail's fresh deflate stream can follow at a byte boundary) + tail raw deflate (final
 * block) + CRC32/ISIZE trailer of the whole uncompressed body.
 */
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { Family } from './model.ts';
import { type ExpositionFormat, renderFamilies, renderFamiliesToBuffers } from './render.ts';

export { type Negotiated, negotiate } from './negotiate.ts';

/** Content type of the Prometheus text format 0.0.4. */
export const TEXT_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
/** Content type of OpenMetrics 1.0. */
export const OPENMETRICS_CONTENT_TYPE = 'application/openmetrics-text; version=1.0.0; charset=utf-8';

const CONTENT_TYPES: Record<ExpositionFormat, string> = {
  text: TEXT_CONTENT_TYPE,
  openmetrics: OPENMETRICS_CONTENT_TYPE,
};
const FORMATS: readonly ExpositionFormat[] = ['text', 'openmetrics'];
const EOF = Buffer.from('# EOF\n');
// ID1 ID2, CM=deflate, no flags, MTIME=0 (reproducible bytes), XFL=0, OS=unknown.
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0xff]);

const deflateRaw = promisify(zlib.deflateRaw);

/** CRC32 of `buf` continued from `crc`, unsigned. */
function crc32(buf: Buffer, crc: number): number {
  // Node 20's zlib.crc32 returns 0 instead of `crc` for a buffer without a backing store
  // (e.g. Buffer.from('')), which would corrupt the trailer of an empty tail.
  return buf.length === 0 ? crc : zlib.crc32(buf, crc) >>> 0;
}

/** A scrape response. */
export interface ExpositionResponse {
  readonly body: Buffer;
  readonly contentType: string;
  readonly contentEncoding?: 'gzip';
}

/** Options of {@link ExpositionCache}. */
export interface ExpositionCacheOptions {
  /** zlib level (1 fastest .. 9 smallest) for both the static part and the tail; default 6. */
  readonly gzipLevel?: number;
}

/** Bytes of one body in one format: plain, raw-deflated up to a sync flush. */
interface Encoded {
  readonly plain: Buffer;
  readonly deflated: Buffer;
}

interface Part {
  readonly series: number;
  readonly bodies: Readonly<Record<ExpositionFormat, Encoded>>;
}

interface StaticBody extends Encoded {
  /** CRC32 of `plain`, continued over each scrape's tail. */
  readonly crc: number;
}

/** Everything a scrape reads, swapped as one reference so a scrape never sees a mix. */
interface State {
  readonly series: number;
  readonly bodies: Readonly<Record<ExpositionFormat, StaticBody>>;
}

const EMPTY_STATE: State = {
  series: 0,
  bodies: {
    text: { plain: Buffer.alloc(0), deflated: Buffer.alloc(0), crc: 0 },
    openmetrics: { plain: Buffer.alloc(0), deflated: Buffer.alloc(0), crc: 0 },
  },
};

/** Cache of the rendered exposition: publish parts per snapshot, respond per scrape. */
export class ExpositionCache {
  private readonly level: number;
  private parts = new Map<string, Part>();
  private state: State = EMPTY_STATE;
  /** Sequence number of the last publish/remove call, to let the latest call per part win. */
  private seq = 0;
  private readonly applied = new Map<string, number>();
  private renderMs = 0;

  constructor(opts: ExpositionCacheOptions = {}) {
    this.level = opts.gzipLevel ?? 6;
  }

  /**
   * Renders a part in both formats and compresses it, without blocking the event loop for
   * long, then swaps in the new bodies. When calls for the same part overlap, the one made
   * last wins whatever order they finish in; parts published concurrently are all kept.
   */
  async publish(partName: string, families: readonly Family[]): Promise<void> {
    const seq = ++this.seq;
    const text = await renderFamiliesToBuffers(families, 'text');
    const om = await renderFamiliesToBuffers(families, 'openmetrics');
    const [textBody, omBody] = await Promise.all([this.encode(text.chunks), this.encode(om.chunks)]);
    if ((this.applied.get(partName) ?? 0) > seq) return;
    this.applied.set(partName, seq);
    this.renderMs = text.busyMs + om.busyMs;
    this.parts.set(partName, { series: text.samples, bodies: { text: textBody, openmetrics: omBody } });
    this.rebuild();
  }

  /** Drops a part; the next scrape no longer contains it. An in-flight publish of it is discarded. */
  remove(partName: string): void {
    this.applied.set(partName, ++this.seq);
    if (this.parts.delete(partName)) this.rebuild();
  }

  /**
   * Builds a scrape response: the cached static parts followed by `dynamicFamilies`
   * (rendered now) and, for OpenMetrics, `# EOF`. Never re-renders or re-compresses the
   * static parts.
   */
  async respond(
    format: ExpositionFormat,
    gzip: boolean,
    dynamicFamilies: readonly Family[],
  ): Promise<ExpositionResponse> {
    const body = this.state.bodies[format];
    const contentType = CONTENT_TYPES[format];
    const rendered = Buffer.from(renderFamilies(dynamicFamilies, format), 'utf8');
    const tail = format === 'openmetrics' ? Buffer.concat([rendered, EOF]) : rendered;
    if (!gzip) return { body: Buffer.concat([body.plain, tail]), contentType };
    // The tail is a few kilobytes: compressing it inline is cheaper than a thread-pool hop.
    const deflatedTail = zlib.deflateRawSync(tail, { level: this.level });
    const trailer = Buffer.allocUnsafe(8);
    trailer.writeUInt32LE(crc32(tail, body.crc), 0);
    trailer.writeUInt32LE((body.plain.length + tail.length) % 2 ** 32, 4);
    return {
      body: Buffer.concat([GZIP_HEADER, body.deflated, deflatedTail, trailer]),
      contentType,
      contentEncoding: 'gzip',
    };
  }

  /** Series (samples) in the parts currently served. */
  seriesCount(): number {
    return this.state.series;
  }

  /** Time the last publish spent rendering both formats, in milliseconds (yields excluded). */
  lastRenderMs(): number {
    return this.renderMs;
  }

  private async encode(chunks: readonly Buffer[]): Promise<Encoded> {
    const plain = Buffer.concat(chunks);
    // Sync flush, not finish: the stream stays open and byte-aligned so a tail can follow.
    const deflated = await deflateRaw(plain, {
      level: this.level,
      finishFlush: zlib.constants.Z_SYNC_FLUSH,
    });
    return { plain, deflated };
  }

  /**
   * Concatenates all parts, ordered by name, into the static bodies and swaps them in.
   * Synchronous, so no scrape and no other publish can interleave with it.
   */
  private rebuild(): void {
    const names = [...this.parts.keys()].sort();
    const ordered = names.map((n) => this.parts.get(n)!);
    const bodies = {} as Record<ExpositionFormat, StaticBody>;
    for (const format of FORMATS) {
      const plain = Buffer.concat(ordered.map((p) => p.bodies[format].plain));
      const deflated = Buffer.concat(ordered.map((p) => p.bodies[format].deflated));
      bodies[format] = { plain, deflated, crc: crc32(plain, 0) };
    }
    let series = 0;
    for (const p of ordered) series += p.series;
    this.state = { series, bodies };
    this.shareBytes(names, bodies);
  }

  /**
   * Points every part at its slice of the new static bodies, so each byte is held once
   * instead of once in the part and once in the concatenation.
   */
  private shareBytes(names: readonly string[], bodies: Record<ExpositionFormat, StaticBody>): void {
    const offsets = { text: { plain: 0, deflated: 0 }, openmetrics: { plain: 0, deflated: 0 } };
    for (const name of names) {
      const part = this.parts.get(name)!;
      const shared = {} as Record<ExpositionFormat, Encoded>;
      for (const format of FORMATS) {
        const own = part.bodies[format];
        const at = offsets[format];
        shared[format] = {
          plain: bodies[format].plain.subarray(at.plain, at.plain + own.plain.length),
          deflated: bodies[format].deflated.subarray(at.deflated, at.deflated + own.deflated.length),
        };
        at.plain += own.plain.length;
        at.deflated += own.deflated.length;
      }
      this.parts.set(name, { series: part.series, bodies: shared });
    }
  }
}
