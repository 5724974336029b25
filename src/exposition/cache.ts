/**
 * A per-snapshot cache of rendered exposition bytes.
 *
 * Each collector publishes a whole part (its families for one snapshot). A publish renders
 * the part in the text formats and deflates it; a scrape only renders and deflates the
 * small dynamic tail (self-metrics) and splices it after the cached static bytes. The gzip
 * body is one gzip member: header + each part's raw deflate (ended by a sync flush, so the
 * next stream can follow at a byte boundary) + tail raw deflate (final block) + CRC32/ISIZE
 * trailer of the whole uncompressed body.
 *
 * Only what scrapers ask for is kept (see {@link Demand}): the deflated bytes always, since
 * Prometheus asks for gzip; the plain bytes of a format only while plain scrapes of it come
 * (otherwise a plain scrape inflates the deflated bytes once per snapshot). In `when-asked`
 * mode (the exporter's), protobuf is rendered on first ask: a part keeps what it needs to render
 * it (its OpenMetrics bytes, which it keeps anyway, read back by openmetrics-read.ts, and its
 * native-histogram families), a protobuf scrape that finds no protobuf body waits for one
 * render of the parts that lack it,
 * publishes render protobuf while a protobuf scrape came within the last few scrape intervals
 * (see {@link RecentAsks}), and the first publish after that drops every protobuf body.
 */
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { LoopYielder } from '../util/loop-yield.ts';
import { crc32, crc32Combine } from './crc32.ts';
import { DEFAULT_DEMAND_PUBLISHES, Demand, RecentAsks } from './demand.ts';
import type { Family } from './model.ts';
import { type FamilyShape, readOpenMetrics, shapesOf } from './openmetrics-read.ts';
import { PROTOBUF_CONTENT_TYPE, renderProtobufInto, renderProtobufToBuffer } from './protobuf.ts';
import {
  type ExpositionFormat,
  renderFamiliesInto,
  renderFamiliesToBuffer,
  sameInBothFormats,
  type TextFormat,
} from './render.ts';

/** Content type of the Prometheus text format 0.0.4. */
export const TEXT_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
/** Content type of OpenMetrics 1.0. */
export const OPENMETRICS_CONTENT_TYPE = 'application/openmetrics-text; version=1.0.0; charset=utf-8';

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
const inflateRaw = promisify(zlib.inflateRaw);

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
  /** The exporter's yielder to the event loop, shared with the client and collectors; default the cache's own. */
  readonly yielder?: LoopYielder;
  /**
   * Publishes of a part that keep a format's plain bytes after the last plain scrape of it;
   * default {@link DEFAULT_DEMAND_PUBLISHES}.
   */
  readonly demandPublishes?: number;
  /**
   * `when-asked`: render protobuf on the first protobuf scrape, then on publishes while
   * protobuf scrapes come (the exporter's choice: most Prometheus servers never ask for it);
   * `always` (default): on every publish.
   */
  readonly protobuf?: 'always' | 'when-asked';
  /**
   * `when-asked`: how long after the last protobuf scrape publishes keep rendering protobuf;
   * default three times the observed scrape interval (see {@link RecentAsks}).
   */
  readonly protobufIdleMs?: number;
  /** Monotonic clock in milliseconds, for the protobuf idle period; default performance.now. */
  readonly clock?: () => number;
}

/**
 * One format of a published part: its raw deflate (one stream up to a sync flush), CRC32 and
 * length, and the plain bytes while plain scrapes of the format come. `inflated` holds the
 * plain bytes recovered for a plain scrape, until the part is published again.
 */
interface PartBody {
  readonly deflated: Buffer;
  readonly crc: number;
  readonly length: number;
  readonly plain?: readonly Buffer[];
  inflated?: Promise<Buffer>;
}

/**
 * A published part: its series, its text bodies, and its protobuf body (on every publish, or in
 * `when-asked` mode only while asked for: then `shapes` is kept, to read the families back from
 * the OpenMetrics body on an ask). Keeping the families themselves cost about 20 MiB of heap
 * per 100k series; the shapes hold only the native histograms, which no text format carries.
 */
interface Part {
  readonly series: number;
  readonly bodies: Readonly<Record<TextFormat, PartBody>>;
  readonly shapes?: readonly FamilyShape[];
  protobuf?: PartBody;
}

/** The static body of one format: the parts' bodies in order, with their combined CRC. */
interface StaticBody {
  readonly parts: readonly PartBody[];
  readonly length: number;
  readonly crc: number;
}

/** Everything a scrape reads, swapped as one reference so a scrape never sees a mix. */
interface State {
  readonly series: number;
  /** A format is missing while a part lacks it (protobuf before it is asked for). */
  readonly bodies: Readonly<Partial<Record<ExpositionFormat, StaticBody>>>;
}

const EMPTY_BODY: StaticBody = { parts: [], length: 0, crc: 0 };
const EMPTY_STATE: State = {
  series: 0,
  bodies: { text: EMPTY_BODY, openmetrics: EMPTY_BODY, protobuf: EMPTY_BODY },
};

/** Bytes a format of the cache holds (for the bench and tests). */
export interface HeldBytes {
  readonly plain: number;
  readonly deflated: number;
}

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

/**
 * Splits families, in order, into runs that render the same in both text formats (the Prometheus
 * text format and OpenMetrics) or not; protobuf, the third format, is rendered apart.
 */
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

/** One rendered chunk: plain bytes, raw deflate up to a sync flush, CRC32. */
interface Encoded {
  /** The plain bytes, when they are kept (in memory of their own). */
  readonly plain?: Buffer;
  readonly length: number;
  readonly deflated: Buffer;
  readonly crc: number;
}

/** A copy in memory of its own exact size (not from Node's shared pool, whose slab it would hold). */
function ownCopy(b: Buffer): Buffer {
  const copy = Buffer.allocUnsafeSlow(b.length);
  b.copy(copy);
  return copy;
}

/** A format of a part from its encoded chunks, keeping the plain bytes or not. */
function partBody(encoded: readonly Encoded[], opts: { readonly keepPlain: boolean }): PartBody {
  let crc = 0;
  let length = 0;
  for (const e of encoded) {
    crc = crc32Combine(crc, e.crc, e.length);
    length += e.length;
  }
  const deflated = Buffer.concat(encoded.map((e) => e.deflated));
  const plain = encoded.map((e) => e.plain);
  return opts.keepPlain && plain.every((p) => p !== undefined)
    ? { deflated, crc, length, plain }
    : { deflated, crc, length };
}

/** The plain bytes of a part body: kept, or inflated once from its deflate. */
function plainOf(body: PartBody): readonly Buffer[] | Promise<Buffer> {
  if (body.plain) return body.plain;
  // Sync flush: the stream has no final block, which is what a part's deflate is.
  body.inflated ??= inflateRaw(body.deflated, { finishFlush: zlib.constants.Z_SYNC_FLUSH });
  return body.inflated;
}

/**
 * The plain text of a part body, inflated now if only its deflate is kept, and not remembered
 * (unlike {@link plainOf}: the protobuf render needs it once).
 */
async function wholePlain(body: PartBody): Promise<string> {
  if (body.plain) return Buffer.concat(body.plain).toString('utf8');
  if (body.inflated) return (await body.inflated).toString('utf8');
  const plain = await inflateRaw(body.deflated, { finishFlush: zlib.constants.Z_SYNC_FLUSH });
  return plain.toString('utf8');
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
  private readonly yielder: LoopYielder;
  /** Protobuf scrapes, plain or gzipped, in `when-asked` mode: whether publishes render protobuf. */
  private readonly protobufAsks: RecentAsks | undefined;
  /** The render of the parts' missing protobuf bodies a protobuf scrape waits for, if any. */
  private protobufRender: Promise<void> | undefined;
  /** Plain (not gzipped) scrapes per format: whether publishes keep that format's plain bytes. */
  private readonly plainDemand: Record<ExpositionFormat, Demand>;
  /** The families of each tail, to render it in the text format when protobuf is not ready. */
  private readonly tailFamilies = new WeakMap<Tail, { families: readonly Family[]; text?: Tail }>();

  constructor(opts: ExpositionCacheOptions = {}) {
    this.level = opts.gzipLevel ?? 6;
    this.yielder = opts.yielder ?? new LoopYielder();
    const n = opts.demandPublishes ?? DEFAULT_DEMAND_PUBLISHES;
    this.protobufAsks =
      opts.protobuf === 'when-asked'
        ? new RecentAsks({ clock: opts.clock ?? (() => performance.now()), idleMs: opts.protobufIdleMs })
        : undefined;
    this.plainDemand = { text: new Demand(n), openmetrics: new Demand(n), protobuf: new Demand(n) };
  }

  /**
   * Renders a part and compresses it, without blocking the event loop for long, then
   * swaps in the new bodies. Families that look the same in both text formats (gauges without
   * a UNIT line: nearly all collector data) are rendered and compressed once. In `when-asked`
   * mode protobuf is rendered only while protobuf scrapes come, and once they have stopped for
   * the idle period this publish drops every part's protobuf body. When calls for the same
   * part overlap, the one made last wins whatever order they finish in; parts published
   * concurrently are all kept.
   */
  async publish(partName: string, families: readonly Family[]): Promise<void> {
    const seq = ++this.seq;
    const text: Encoded[] = [];
    const om: Encoded[] = [];
    let textMs = 0;
    let omMs = 0;
    let series = 0;
    const keepText = this.plainDemand.text.takePublish(partName);
    const keepOm = this.plainDemand.openmetrics.takePublish(partName);
    for (const run of runsOf(families)) {
      const encoded: Encoded[] = [];
      const rendered = await this.renderInto(run.families, {
        format: 'text',
        into: encoded,
        keepPlain: keepText || (run.shared && keepOm),
      });
      textMs += rendered.busyMs;
      series += rendered.samples;
      text.push(...encoded);
      if (run.shared) {
        om.push(...encoded);
        continue;
      }
      const own = await this.renderInto(run.families, { format: 'openmetrics', into: om, keepPlain: keepOm });
      omMs += own.busyMs;
    }
    const bodies = {
      text: partBody(text, { keepPlain: keepText }),
      openmetrics: partBody(om, { keepPlain: keepOm }),
    };
    let pbMs = 0;
    const keepPbPlain = this.plainDemand.protobuf.takePublish(partName);
    let protobuf: PartBody | undefined;
    const asks = this.protobufAsks;
    if (asks === undefined || asks.active()) {
      const pb = await this.renderProtobuf(families, { keepPlain: keepPbPlain });
      pbMs = pb.busyMs;
      protobuf = pb.body;
    }
    if ((this.applied.get(partName) ?? 0) > seq) return;
    this.applied.set(partName, seq);
    this.renderMs = { text: textMs, openmetrics: omMs, protobuf: pbMs };
    // Nobody asked for protobuf for the idle period: the other parts' protobuf bodies go too.
    if (asks !== undefined && !asks.active()) for (const p of this.parts.values()) p.protobuf = undefined;
    const part: Part =
      asks === undefined ? { series, bodies } : { series, bodies, shapes: shapesOf(families) };
    if (protobuf !== undefined) part.protobuf = protobuf;
    this.parts.set(partName, part);
    this.rebuild();
  }

  /** True while the cache holds a part of that name (published and not removed). */
  has(partName: string): boolean {
    return this.parts.has(partName);
  }

  /** Drops a part; the next scrape no longer contains it. An in-flight publish of it is discarded. */
  remove(partName: string): void {
    this.applied.set(partName, ++this.seq);
    for (const d of Object.values(this.plainDemand)) d.forget(partName);
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
    const tail: Tail = {
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
    if (format === 'protobuf') this.tailFamilies.set(tail, { families: dynamicFamilies });
    return tail;
  }

  /**
   * Builds a scrape response: the cached static parts followed by the dynamic tail (families
   * rendered now, or a tail from {@link tail}). Never re-renders or re-compresses the static
   * parts. `gzip`: the body as one gzip member (default plain).
   *
   * A protobuf scrape that finds a part without its protobuf body (`when-asked` mode, after a
   * time without protobuf scrapes) waits for one render of the parts that lack it, from their
   * families; concurrent scrapes wait for the same render. Only if publishes keep replacing
   * parts with ones rendered before the ask does it get the text format, with its content
   * type, which Prometheus parses as it would after falling back in content negotiation.
   */
  async respond(
    format: ExpositionFormat,
    dynamic: readonly Family[] | Tail,
    opts: { readonly gzip?: boolean } = {},
  ): Promise<ExpositionResponse> {
    let tail = isTail(dynamic) ? dynamic : this.tail(format, dynamic);
    if (tail.format !== format) throw new Error(`a ${tail.format} tail cannot end a ${format} body`);
    if (format === 'protobuf' && this.protobufAsks !== undefined) {
      this.protobufAsks.ask();
      await this.protobufOnAsk({ keepPlain: !opts.gzip });
    }
    let answered = format;
    let body = this.state.bodies[format];
    if (body === undefined) {
      answered = 'text';
      body = this.state.bodies.text ?? EMPTY_BODY;
      tail = this.textTailOf(tail);
    }
    const contentType = CONTENT_TYPES[answered];
    if (!opts.gzip) {
      this.plainDemand[answered].ask();
      const chunks: Buffer[] = [];
      for (const p of body.parts) {
        const plain = await plainOf(p);
        if (Array.isArray(plain)) chunks.push(...plain);
        else chunks.push(plain as Buffer);
      }
      chunks.push(tail.plain);
      return response(chunks, contentType);
    }
    const chunks = [GZIP_HEADER, ...body.parts.map((p) => p.deflated), tail.deflated(), tail.trailer(body)];
    return response(chunks, contentType, 'gzip');
  }

  /** Series (samples) in the parts currently served. */
  seriesCount(): number {
    return this.state.series;
  }

  /**
   * Bytes held per format: plain (kept or inflated for a plain scrape) and deflated;
   * undefined for a format not rendered (protobuf while nobody asks for it).
   */
  heldBytes(): Readonly<Record<ExpositionFormat, HeldBytes | undefined>> {
    const held = {} as Record<ExpositionFormat, HeldBytes | undefined>;
    for (const format of FORMATS) {
      const body = this.state.bodies[format];
      if (body === undefined) {
        held[format] = undefined;
        continue;
      }
      let plain = 0;
      let deflated = 0;
      for (const p of body.parts) {
        deflated += p.deflated.length;
        if (p.plain || p.inflated) plain += p.length;
      }
      held[format] = { plain, deflated };
    }
    return held;
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
   * Renders the protobuf bodies the parts lack, from their families, and swaps them in; a few
   * rounds, in case a publish begun before the ask replaced a part meanwhile.
   */
  private async protobufOnAsk(opts: { readonly keepPlain: boolean }): Promise<void> {
    for (let round = 0; round < 3 && this.state.bodies.protobuf === undefined; round++) {
      this.protobufRender ??= this.renderMissingProtobuf(opts).finally(() => {
        this.protobufRender = undefined;
      });
      await this.protobufRender;
    }
  }

  private async renderMissingProtobuf(opts: { readonly keepPlain: boolean }): Promise<void> {
    let busyMs = 0;
    for (const part of [...this.parts.values()]) {
      if (part.protobuf !== undefined || part.shapes === undefined) continue;
      const families = await readOpenMetrics(await wholePlain(part.bodies.openmetrics), {
        shapes: part.shapes,
        yielder: this.yielder,
      });
      const pb = await this.renderProtobuf(families, opts);
      busyMs += pb.busyMs;
      // A part replaced meanwhile keeps its own (newer) body; this one is then dropped with it.
      part.protobuf ??= pb.body;
    }
    this.renderMs = { ...this.renderMs, protobuf: busyMs };
    this.rebuild();
  }

  /**
   * Renders families in a text format step by step, compressing each step's bytes before the
   * next step writes over them: only the compressed bytes (and the plain ones when kept, as
   * copies) outlive the render.
   */
  private renderInto(
    families: readonly Family[],
    opts: { readonly format: TextFormat; readonly into: Encoded[]; readonly keepPlain: boolean },
  ): Promise<{ readonly samples: number; readonly busyMs: number }> {
    return renderFamiliesInto(families, opts.format, {
      yielder: this.yielder,
      consume: this.consumer(opts),
    });
  }

  /** What a streaming render hands its steps to: compressed, the plain bytes copied when kept. */
  private consumer(opts: { readonly into: Encoded[]; readonly keepPlain: boolean }) {
    return async (chunks: Buffer[]) => {
      for (const e of await this.encode(chunks)) {
        const { plain, ...rest } = e;
        opts.into.push(opts.keepPlain && plain ? { ...rest, plain: ownCopy(plain) } : rest);
      }
    };
  }

  /** A part's protobuf body from its families, streamed like the text formats'. */
  private async renderProtobuf(
    families: readonly Family[],
    opts: { readonly keepPlain: boolean },
  ): Promise<{ body: PartBody; busyMs: number }> {
    const into: Encoded[] = [];
    const pb = await renderProtobufInto(families, {
      yielder: this.yielder,
      consume: this.consumer({ into, ...opts }),
    });
    return { body: partBody(into, opts), busyMs: pb.busyMs };
  }

  /** The text-format tail with the same families as a protobuf tail, rendered once per tail. */
  private textTailOf(tail: Tail): Tail {
    const held = this.tailFamilies.get(tail);
    if (held === undefined) throw new Error('a protobuf tail not made by this cache');
    held.text ??= this.tail('text', held.families);
    return held.text;
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
      encoded.push({ plain, length: plain.length, deflated, crc: crc32(plain) });
    }
    return encoded;
  }

  /**
   * Orders the parts by name into the static bodies and swaps them in. Synchronous, so no
   * scrape and no other publish can interleave with it; it copies no body bytes (the CRCs
   * are combined arithmetically). A format some part lacks is left out.
   */
  private rebuild(): void {
    const ordered = [...this.parts.keys()].sort().map((n) => this.parts.get(n)!);
    const bodies: Partial<Record<ExpositionFormat, StaticBody>> = {};
    for (const format of FORMATS) {
      const parts: PartBody[] = [];
      for (const p of ordered) {
        const b = format === 'protobuf' ? p.protobuf : p.bodies[format];
        if (b) parts.push(b);
      }
      if (parts.length < ordered.length) continue;
      let crc = 0;
      let length = 0;
      for (const b of parts) {
        crc = crc32Combine(crc, b.crc, b.length);
        length += b.length;
      }
      bodies[format] = { parts, length, crc };
    }
    let series = 0;
    for (const p of ordered) series += p.series;
    this.state = { series, bodies };
  }
}
