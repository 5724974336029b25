/**
 * A per-snapshot cache of rendered exposition bytes.
 *
 * Each collector publishes a whole part (its families for one snapshot). A publish renders
 * the part in the text formats and in protobuf, and deflates it once; a scrape only renders and deflates the
 * small dynamic tail (self-metrics) and splices it after the cached static bytes. The gzip
 * body is one gzip member: header + static raw deflate (ended by a sync flush, so the
 * tail's fresh deflate stream can follow at a byte boundary) + tail raw deflate (final
 * block) + CRC32/ISIZE trailer of the whole uncompressed body.
 */
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { createTurns, type Turns } from '../util/turns.ts';
import { crc32, crc32Combine } from './crc32.ts';
import type { Family } from './model.ts';
import { PROTOBUF_CONTENT_TYPE, renderProtobufToBuffer, renderProtobufToBuffers } from './protobuf.ts';
import {
  type ExpositionFormat,
  renderFamiliesToBuffer,
  renderFamiliesToBuffers,
  sameInBothFormats,
} from './render.ts';

export { type Negotiated, negotiate } from './negotiate.ts';

/** Content type of the Prometheus text format 0.0.4. */
export const TEXT_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
/** Content type of OpenMetrics 1.0. */
export const OPENMETRICS_CONTENT_TYPE = 'application/openmetrics-text; version=1.0.0; charset=utf-8';

export { PROTOBUF_CONTENT_TYPE } from './protobuf.ts';

const CONTENT_TYPES: Record<ExpositionFormat, string> = {
  text: TEXT_CONTENT_TYPE,
  openmetrics: OPENMETRICS_CONTENT_TYPE,
  protobuf: PROTOBUF_CONTENT_TYPE,
};
const FORMATS: readonly ExpositionFormat[] = ['text', 'openmetrics', 'protobuf'];
const EOF = Buffer.from('# EOF\n');
// ID1 ID2, CM=deflate, no flags, MTIME=0 (reproducible bytes), XFL=0, OS=unknown.
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0xff]);

const deflateRaw = promisify(zlib.deflateRaw);

/** A scrape response: the body as chunks, so the cached bytes are written without a copy. */
export interface ExpositionResponse {
  readonly chunks: readonly Buffer[];
  /** Total length of the chunks in bytes. */
  readonly length: number;
  /** The body as one buffer (a copy; for tests and small bodies). */
  readonly body: Buffer;
  readonly contentType: string;
  readonly contentEncoding?: 'gzip';
}

/** The rendered dynamic end of a scrape body, in one format. */
export interface Tail {
  readonly format: ExpositionFormat;
  readonly plain: Buffer;
  /** Raw deflate of `plain`, ending the gzip stream (computed once, on first use). */
  deflated(): Buffer;
  /** The gzip trailer (CRC32 and length) of `body` followed by this tail; kept for the last body asked. */
  trailer(body: { readonly crc: number; readonly length: number }): Buffer;
}

function isTail(x: readonly Family[] | Tail): x is Tail {
  return !Array.isArray(x);
}

/** Options of {@link ExpositionCache}. */
export interface ExpositionCacheOptions {
  /** zlib level (1 fastest .. 9 smallest) for both the static part and the tail; default 6. */
  readonly gzipLevel?: number;
  /** The exporter's turn queue, shared with the client and collectors; default the cache's own. */
  readonly turns?: Turns;
}

/** One rendered chunk of a run of families: plain bytes, raw deflate up to a sync flush, CRC32. */
interface Encoded {
  readonly plain: Buffer;
  readonly deflated: Buffer;
  readonly crc: number;
}

/**
 * A published part. Most families render identically in both formats, so a part is a list
 * of runs, each either shared by both formats or rendered once per format.
 */
interface Part {
  readonly series: number;
  readonly bodies: Readonly<Record<ExpositionFormat, readonly Encoded[]>>;
}

/** The static body of one format: the parts' runs in order, with their combined CRC. */
interface StaticBody {
  readonly runs: readonly Encoded[];
  readonly length: number;
  readonly crc: number;
  /**
   * The gzip header and every run's deflate in one buffer (about a tenth of the plain body):
   * a gzip scrape then writes three chunks instead of one per rendered chunk.
   */
  readonly gzipHead: Buffer;
}

/** Everything a scrape reads, swapped as one reference so a scrape never sees a mix. */
interface State {
  readonly series: number;
  readonly bodies: Readonly<Record<ExpositionFormat, StaticBody>>;
}

const EMPTY_BODY: StaticBody = { runs: [], length: 0, crc: 0, gzipHead: GZIP_HEADER };
const EMPTY_STATE: State = {
  series: 0,
  bodies: { text: EMPTY_BODY, openmetrics: EMPTY_BODY, protobuf: EMPTY_BODY },
};

function response(chunks: Buffer[], contentType: string, contentEncoding?: 'gzip'): ExpositionResponse {
  let length = 0;
  for (const c of chunks) length += c.length;
  return {
    chunks,
    length,
    contentType,
    ...(contentEncoding ? { contentEncoding } : {}),
    get body() {
      return Buffer.concat(chunks, length);
    },
  };
}

/** Splits families, in order, into runs that render the same in both formats or not. */
function runsOf(families: readonly Family[]): Array<{ shared: boolean; families: Family[] }> {
  const runs: Array<{ shared: boolean; families: Family[] }> = [];
  for (const f of families) {
    const shared = sameInBothFormats(f);
    const last = runs[runs.length - 1];
    if (last && last.shared === shared) last.families.push(f);
    else runs.push({ shared, families: [f] });
  }
  return runs;
}

/** Cache of the rendered exposition: publish parts per snapshot, respond per scrape. */
export class ExpositionCache {
  private readonly level: number;
  private parts = new Map<string, Part>();
  private state: State = EMPTY_STATE;
  /** Sequence number of the last publish/remove call, to let the latest call per part win. */
  private seq = 0;
  private readonly applied = new Map<string, number>();
  private renderMs: Record<ExpositionFormat, number> = { text: 0, openmetrics: 0, protobuf: 0 };
  private readonly turns: Turns;

  constructor(opts: ExpositionCacheOptions = {}) {
    this.level = opts.gzipLevel ?? 6;
    this.turns = opts.turns ?? createTurns();
  }

  /**
   * Renders a part and compresses it, without blocking the event loop for long, then
   * swaps in the new bodies. Families that look the same in both formats (gauges without
   * a UNIT line: nearly all collector data) are rendered and compressed once. When calls
   * for the same part overlap, the one made last wins whatever order they finish in;
   * parts published concurrently are all kept.
   */
  async publish(partName: string, families: readonly Family[]): Promise<void> {
    const seq = ++this.seq;
    const text: Encoded[] = [];
    const om: Encoded[] = [];
    let textMs = 0;
    let omMs = 0;
    let series = 0;
    for (const run of runsOf(families)) {
      const rendered = await renderFamiliesToBuffers(run.families, 'text', { turns: this.turns });
      textMs += rendered.busyMs;
      series += rendered.samples;
      const encoded = await this.encode(rendered.chunks);
      text.push(...encoded);
      if (run.shared) {
        om.push(...encoded);
        continue;
      }
      const own = await renderFamiliesToBuffers(run.families, 'openmetrics', { turns: this.turns });
      omMs += own.busyMs;
      om.push(...(await this.encode(own.chunks)));
    }
    const pb = await renderProtobufToBuffers(families, { turns: this.turns });
    const protobuf = await this.encode(pb.chunks);
    if ((this.applied.get(partName) ?? 0) > seq) return;
    this.applied.set(partName, seq);
    this.renderMs = { text: textMs, openmetrics: omMs, protobuf: pb.busyMs };
    this.parts.set(partName, { series, bodies: { text, openmetrics: om, protobuf } });
    this.rebuild();
  }

  /** True while the cache holds a part of that name (published and not removed). */
  has(partName: string): boolean {
    return this.parts.has(partName);
  }

  /** Drops a part; the next scrape no longer contains it. An in-flight publish of it is discarded. */
  remove(partName: string): void {
    this.applied.set(partName, ++this.seq);
    if (this.parts.delete(partName)) this.rebuild();
  }

  /**
   * Renders the dynamic tail of a scrape: `dynamicFamilies` and, for OpenMetrics, `# EOF`.
   * A tail can serve several scrapes (see the server's self-metrics memo); its deflated
   * form is computed on first use.
   */
  tail(format: ExpositionFormat, dynamicFamilies: readonly Family[]): Tail {
    const rendered =
      format === 'protobuf'
        ? renderProtobufToBuffer(dynamicFamilies)
        : renderFamiliesToBuffer(dynamicFamilies, format);
    const plain = format === 'openmetrics' ? Buffer.concat([rendered, EOF]) : rendered;
    let deflated: Buffer | undefined;
    let last: { body: object; trailer: Buffer } | undefined;
    // The tail is a few kilobytes: compressing it inline is cheaper than a thread-pool hop.
    return {
      format,
      plain,
      deflated: () => (deflated ??= zlib.deflateRawSync(plain, { level: this.level })),
      trailer: (body) => {
        if (last?.body === body) return last.trailer;
        const trailer = Buffer.allocUnsafe(8);
        trailer.writeUInt32LE(crc32(plain, body.crc), 0);
        trailer.writeUInt32LE((body.length + plain.length) % 2 ** 32, 4);
        last = { body, trailer };
        return trailer;
      },
    };
  }

  /**
   * Builds a scrape response: the cached static parts followed by the dynamic tail (families
   * rendered now, or a tail from {@link tail}). Never re-renders, re-compresses or copies
   * the static parts. `gzip`: the body as one gzip member (default plain).
   */
  async respond(
    format: ExpositionFormat,
    dynamic: readonly Family[] | Tail,
    opts: { readonly gzip?: boolean } = {},
  ): Promise<ExpositionResponse> {
    const tail = isTail(dynamic) ? dynamic : this.tail(format, dynamic);
    if (tail.format !== format) throw new Error(`a ${tail.format} tail cannot end a ${format} body`);
    const body = this.state.bodies[format];
    const contentType = CONTENT_TYPES[format];
    if (!opts.gzip) return response([...body.runs.map((r) => r.plain), tail.plain], contentType);
    return response([body.gzipHead, tail.deflated(), tail.trailer(body)], contentType, 'gzip');
  }

  /** Series (samples) in the parts currently served. */
  seriesCount(): number {
    return this.state.series;
  }

  /** Time the last publish spent rendering every format, in milliseconds (yields excluded). */
  lastRenderMs(): number {
    return this.renderMs.text + this.renderMs.openmetrics + this.renderMs.protobuf;
  }

  /** Time the last publish spent rendering each format, in milliseconds (yields excluded). */
  lastRenderMsByFormat(): Readonly<Record<ExpositionFormat, number>> {
    return this.renderMs;
  }

  /**
   * Keeps each rendered chunk as it is, deflated on its own. Copying the chunks into one
   * buffer cost a transient copy of the whole part every publish (17 MB at 100k series),
   * and the allocator kept that churn as RSS. Raw deflate streams ended by a sync flush
   * are byte-aligned, so the chunks' streams follow one another like the tail's does.
   */
  private async encode(chunks: readonly Buffer[]): Promise<Encoded[]> {
    const encoded: Encoded[] = [];
    for (const plain of chunks) {
      // Sync flush, not finish: the stream stays open and byte-aligned so more can follow.
      const deflated = await deflateRaw(plain, {
        level: this.level,
        finishFlush: zlib.constants.Z_SYNC_FLUSH,
      });
      encoded.push({ plain, deflated, crc: crc32(plain) });
    }
    return encoded;
  }

  /**
   * Orders the parts by name into the static bodies and swaps them in. Synchronous, so no
   * scrape and no other publish can interleave with it; it copies no body bytes (the CRCs
   * are combined arithmetically).
   */
  private rebuild(): void {
    const ordered = [...this.parts.keys()].sort().map((n) => this.parts.get(n)!);
    const bodies = {} as Record<ExpositionFormat, StaticBody>;
    for (const format of FORMATS) {
      const runs = ordered.flatMap((p) => p.bodies[format]);
      let crc = 0;
      let length = 0;
      for (const r of runs) {
        crc = crc32Combine(crc, r.crc, r.plain.length);
        length += r.plain.length;
      }
      const gzipHead = Buffer.concat([GZIP_HEADER, ...runs.map((r) => r.deflated)]);
      bodies[format] = { runs, length, crc, gzipHead };
    }
    let series = 0;
    for (const p of ordered) series += p.series;
    this.state = { series, bodies };
  }
}
