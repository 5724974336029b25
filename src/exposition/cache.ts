/**
 * Rendered exposition bytes per part, so that a scrape renders only the small self-metrics tail.
 * The gzip body is one member: header, each part's raw deflate ended by a sync flush (so the next
 * stream follows at a byte boundary), the tail's final block, and the CRC32/ISIZE trailer.
 * Deflated bytes are always kept (Prometheus asks for gzip); plain bytes only while plain scrapes
 * come ({@link Demand}); protobuf only while protobuf scrapes come ({@link RecentAsks}), read back
 * from the OpenMetrics bytes on a late ask (most Prometheus servers never ask for it).
 */
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { LoopYielder } from '../util/loop-yield.ts';
import { crc32, crc32Combine } from './crc32.ts';
import { Demand, RecentAsks } from './demand.ts';
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

/** Prometheus text format 0.0.4. */
export const TEXT_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
/** OpenMetrics 1.0. */
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
/** A part's deflate ends on a sync flush, with no final block. */
const SYNC_FLUSH = { finishFlush: zlib.constants.Z_SYNC_FLUSH };

/** A scrape response: the body as chunks, so the cached bytes are written without a copy. */
export interface ExpositionResponse {
  readonly chunks: readonly Buffer[];
  readonly length: number;
  /** The body as one buffer (a copy). */
  readonly body: Buffer;
  readonly contentType: string;
  readonly contentEncoding?: 'gzip';
}

/** The rendered dynamic end of a scrape body, in one format. */
export interface Tail {
  readonly format: ExpositionFormat;
  /** The families rendered, for a text tail when protobuf is not ready. */
  readonly families: readonly Family[];
  readonly plain: Buffer;
  /** Raw deflate of `plain`, ending the gzip stream (computed on first use). */
  deflated(): Buffer;
  /** The gzip trailer of `body` followed by this tail (kept for the last body asked). */
  trailer(body: { readonly crc: number; readonly length: number }): Buffer;
}

/** One format of a part: raw deflate up to a sync flush; `inflated` serves plain scrapes until the next publish. */
interface PartBody {
  readonly deflated: Buffer;
  readonly crc: number;
  readonly length: number;
  readonly plain?: readonly Buffer[];
  inflated?: Promise<Buffer>;
}

/**
 * A published part. `shapes` lets an ask read the families back from the OpenMetrics body:
 * keeping the families cost about 20 MiB of heap per 100k series.
 */
interface Part {
  readonly series: number;
  readonly bodies: Readonly<Record<TextFormat, PartBody>>;
  readonly shapes: readonly FamilyShape[];
  protobuf?: PartBody;
}

interface StaticBody {
  readonly parts: readonly PartBody[];
  readonly length: number;
  readonly crc: number;
}

/** Everything a scrape reads, swapped as one reference so a scrape never sees a mix. */
interface State {
  readonly series: number;
  /** A format is missing while a part lacks it. */
  readonly bodies: Readonly<Partial<Record<ExpositionFormat, StaticBody>>>;
}

const EMPTY_BODY: StaticBody = { parts: [], length: 0, crc: 0 };
const EMPTY_STATE: State = {
  series: 0,
  bodies: { text: EMPTY_BODY, openmetrics: EMPTY_BODY, protobuf: EMPTY_BODY },
};

/** Bytes a format of the cache holds. */
export interface HeldBytes {
  readonly plain: number;
  readonly deflated: number;
}

function response(chunks: Buffer[], contentType: string, contentEncoding?: 'gzip'): ExpositionResponse {
  const length = chunks.reduce((n, c) => n + c.length, 0);
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

/** Splits families into runs that render the same in both text formats or not. */
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

/** One rendered chunk: plain bytes when kept, raw deflate up to a sync flush, CRC32. */
interface Encoded {
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

/** The CRC32 and length of pieces laid end to end. */
function joined(pieces: readonly { readonly crc: number; readonly length: number }[]) {
  let crc = 0;
  let length = 0;
  for (const p of pieces) {
    crc = crc32Combine(crc, p.crc, p.length);
    length += p.length;
  }
  return { crc, length };
}

function partBody(encoded: readonly Encoded[], opts: { readonly keepPlain: boolean }): PartBody {
  const { crc, length } = joined(encoded);
  const deflated = Buffer.concat(encoded.map((e) => e.deflated));
  const plain = encoded.map((e) => e.plain);
  return opts.keepPlain && plain.every((p) => p !== undefined)
    ? { deflated, crc, length, plain }
    : { deflated, crc, length };
}

/** The plain bytes of a part body: kept, or inflated once from its deflate. */
async function plainOf(body: PartBody): Promise<readonly Buffer[]> {
  if (body.plain) return body.plain;
  body.inflated ??= inflateRaw(body.deflated, SYNC_FLUSH);
  return [await body.inflated];
}

/** Like {@link plainOf}, not remembered: the protobuf render needs it once. */
async function wholePlain(body: PartBody): Promise<string> {
  const plain = body.plain
    ? Buffer.concat(body.plain)
    : await (body.inflated ?? inflateRaw(body.deflated, SYNC_FLUSH));
  return plain.toString('utf8');
}

/** Cache of the rendered exposition: publish parts per snapshot, respond per scrape. */
export class ExpositionCache {
  private parts = new Map<string, Part>();
  private state: State = EMPTY_STATE;
  /** Lets the latest publish or remove of a part win. */
  private seq = 0;
  private readonly applied = new Map<string, number>();
  private renderMs: Record<ExpositionFormat, number> = { text: 0, openmetrics: 0, protobuf: 0 };
  private readonly yielder: LoopYielder;
  /** Whether publishes render protobuf. */
  private readonly protobufAsks = new RecentAsks();
  private protobufRender: Promise<void> | undefined;
  /** Whether publishes keep a format's plain bytes. */
  private readonly plainDemand: Record<ExpositionFormat, Demand> = {
    text: new Demand(),
    openmetrics: new Demand(),
    protobuf: new Demand(),
  };

  /** `yielder`: the exporter's shared yielder to the event loop; default the cache's own. */
  constructor(opts: { readonly yielder?: LoopYielder } = {}) {
    this.yielder = opts.yielder ?? new LoopYielder();
  }

  /**
   * Renders and compresses a part in steps, then swaps it in. Families the same in both text
   * formats (nearly all collector data) are rendered once. Of overlapping calls for a part, the
   * last made wins.
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
      const rendered = await this.render(run.families, 'text', {
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
      const own = await this.render(run.families, 'openmetrics', { into: om, keepPlain: keepOm });
      omMs += own.busyMs;
    }
    const bodies = {
      text: partBody(text, { keepPlain: keepText }),
      openmetrics: partBody(om, { keepPlain: keepOm }),
    };
    let pbMs = 0;
    const keepPbPlain = this.plainDemand.protobuf.takePublish(partName);
    let protobuf: PartBody | undefined;
    if (this.protobufAsks.active()) {
      const pb = await this.renderProtobuf(families, { keepPlain: keepPbPlain });
      pbMs = pb.busyMs;
      protobuf = pb.body;
    }
    if ((this.applied.get(partName) ?? 0) > seq) return;
    this.applied.set(partName, seq);
    this.renderMs = { text: textMs, openmetrics: omMs, protobuf: pbMs };
    if (!this.protobufAsks.active()) for (const p of this.parts.values()) p.protobuf = undefined;
    const part: Part = { series, bodies, shapes: shapesOf(families) };
    if (protobuf !== undefined) part.protobuf = protobuf;
    this.parts.set(partName, part);
    this.rebuild();
  }

  /** True while the cache holds a part of that name. */
  has(partName: string): boolean {
    return this.parts.has(partName);
  }

  /** Drops a part and discards an in-flight publish of it. */
  remove(partName: string): void {
    this.applied.set(partName, ++this.seq);
    for (const d of Object.values(this.plainDemand)) d.forget(partName);
    if (this.parts.delete(partName)) this.rebuild();
  }

  /** Renders a scrape's dynamic tail (and OpenMetrics' `# EOF`); a tail can serve several scrapes. */
  tail(format: ExpositionFormat, families: readonly Family[]): Tail {
    const rendered =
      format === 'protobuf' ? renderProtobufToBuffer(families) : renderFamiliesToBuffer(families, format);
    const plain = format === 'openmetrics' ? Buffer.concat([rendered, EOF]) : rendered;
    let deflated: Buffer | undefined;
    let last: { body: object; trailer: Buffer } | undefined;
    // The tail is a few kilobytes: compressing it inline is cheaper than a thread-pool hop.
    return {
      format,
      families,
      plain,
      deflated: () => (deflated ??= zlib.deflateRawSync(plain)),
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
   * The cached parts followed by the dynamic tail. A protobuf scrape that finds a part without
   * protobuf waits for one shared render of the missing ones; only if publishes keep replacing
   * parts meanwhile does it get the text format, as after a content-negotiation fallback.
   */
  async respond(
    format: ExpositionFormat,
    dynamic: readonly Family[] | Tail,
    opts: { readonly gzip?: boolean } = {},
  ): Promise<ExpositionResponse> {
    let tail = 'plain' in dynamic ? dynamic : this.tail(format, dynamic);
    if (tail.format !== format) throw new Error(`a ${tail.format} tail cannot end a ${format} body`);
    if (format === 'protobuf') {
      this.protobufAsks.ask();
      await this.protobufOnAsk({ keepPlain: !opts.gzip });
    }
    let answered = format;
    let body = this.state.bodies[format];
    if (body === undefined) {
      answered = 'text';
      body = this.state.bodies.text ?? EMPTY_BODY;
      tail = this.tail('text', tail.families);
    }
    const contentType = CONTENT_TYPES[answered];
    if (!opts.gzip) {
      this.plainDemand[answered].ask();
      const chunks: Buffer[] = [];
      for (const p of body.parts) chunks.push(...(await plainOf(p)));
      chunks.push(tail.plain);
      return response(chunks, contentType);
    }
    const chunks = [GZIP_HEADER, ...body.parts.map((p) => p.deflated), tail.deflated(), tail.trailer(body)];
    return response(chunks, contentType, 'gzip');
  }

  /** Samples in the parts currently served. */
  seriesCount(): number {
    return this.state.series;
  }

  /** Bytes held per format; undefined for a format not rendered. */
  heldBytes(): Readonly<Record<ExpositionFormat, HeldBytes | undefined>> {
    const held = {} as Record<ExpositionFormat, HeldBytes | undefined>;
    for (const format of FORMATS) {
      const parts = this.state.bodies[format]?.parts;
      held[format] = parts && {
        plain: parts.reduce((n, p) => n + (p.plain || p.inflated ? p.length : 0), 0),
        deflated: parts.reduce((n, p) => n + p.deflated.length, 0),
      };
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

  /** A few rounds, in case a publish begun before the ask replaced a part meanwhile. */
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
      if (part.protobuf !== undefined) continue;
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
   * Each step is compressed before the next writes over its block; plain bytes are kept as copies.
   * Each chunk is deflated on its own: joining them cost a copy of the whole part per publish
   * (17 MB at 100k series) that the allocator kept as RSS. Sync-flushed streams are byte-aligned.
   */
  private render(
    families: readonly Family[],
    format: ExpositionFormat,
    opts: { readonly into: Encoded[]; readonly keepPlain: boolean },
  ): Promise<{ readonly samples: number; readonly busyMs: number }> {
    const consume = async (chunks: Buffer[]) => {
      for (const plain of chunks) {
        const deflated = await deflateRaw(plain, SYNC_FLUSH);
        const kept = opts.keepPlain ? { plain: ownCopy(plain) } : {};
        opts.into.push({ ...kept, length: plain.length, deflated, crc: crc32(plain) });
      }
    };
    const stream = { yielder: this.yielder, consume };
    return format === 'protobuf'
      ? renderProtobufInto(families, stream)
      : renderFamiliesInto(families, format, stream);
  }

  private async renderProtobuf(
    families: readonly Family[],
    opts: { readonly keepPlain: boolean },
  ): Promise<{ body: PartBody; busyMs: number }> {
    const into: Encoded[] = [];
    const pb = await this.render(families, 'protobuf', { into, ...opts });
    return { body: partBody(into, opts), busyMs: pb.busyMs };
  }

  /** Synchronous, so nothing interleaves; copies no bytes (CRCs combine arithmetically). */
  private rebuild(): void {
    const ordered = [...this.parts.keys()].sort().map((n) => this.parts.get(n)!);
    const bodies: Partial<Record<ExpositionFormat, StaticBody>> = {};
    for (const format of FORMATS) {
      const parts = ordered.flatMap((p) => (format === 'protobuf' ? p.protobuf : p.bodies[format]) ?? []);
      if (parts.length === ordered.length) bodies[format] = { parts, ...joined(parts) };
    }
    this.state = { series: ordered.reduce((n, p) => n + p.series, 0), bodies };
  }
}
