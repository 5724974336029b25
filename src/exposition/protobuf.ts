/**
 * The Prometheus protobuf exposition: delimited `io.prometheus.client.MetricFamily` messages
 * (prometheus/client_model metrics.proto), the one format with native histograms.
 *
 * A hand encoder in the text renderer's way: bytes go straight into blocks, and a label set's
 * parents are encoded once per render. A message is written after one byte reserved for its
 * length and moved when the length needs more; a family reserves five.
 */
import type { Exemplar, Family, FamilyDesc, LabelSet, Sample } from './model.ts';
import type { NativeHistogramSnapshot } from './native-histogram.ts';
import type { StreamOptions } from './render.ts';
import { BlockPool, parseValue, seriesOf, streamSteps } from './render.ts';

/** The delimited protobuf format. */
export const PROTOBUF_CONTENT_TYPE =
  'application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited';

const len = (field: number): number => (field << 3) | 2;
const varint = (field: number): number => field << 3;
const fixed64 = (field: number): number => (field << 3) | 1;

// Field tags of metrics.proto's messages; a gauge's value has the counter's tag.
const FAMILY = { name: len(1), help: len(2), type: varint(3), metric: len(4) };
const METRIC = { label: len(1), gauge: len(2), counter: len(3), histogram: len(7) };
const PAIR = { name: len(1), value: len(2) };
const COUNTER = { value: fixed64(1), exemplar: len(2), created: len(3) };
const HISTOGRAM = {
  count: varint(1),
  sum: fixed64(2),
  bucket: len(3),
  schema: varint(5),
  zeroThreshold: fixed64(6),
  zeroCount: varint(7),
  negativeSpan: len(9),
  negativeDelta: len(10),
  positiveSpan: len(12),
  positiveDelta: len(13),
  created: len(15),
  exemplars: len(16),
};
const NEGATIVE = { span: HISTOGRAM.negativeSpan, delta: HISTOGRAM.negativeDelta };
const POSITIVE = { span: HISTOGRAM.positiveSpan, delta: HISTOGRAM.positiveDelta };
const BUCKET = { count: varint(1), bound: fixed64(2), exemplar: len(3) };
const SPAN = { offset: varint(1), length: varint(2) };
const EXEMPLAR = { label: len(1), value: fixed64(2), timestamp: len(3) };
const TIMESTAMP = { seconds: varint(1), nanos: varint(2) };

/** MetricType of metrics.proto. */
const TYPES: Readonly<Record<FamilyDesc['kind'], number>> = {
  counter: 0,
  gauge: 1,
  info: 1,
  histogram: 4,
};

/** Bytes reserved before a family for its length. Prometheus reads at most 5 (32 bits). */
const FAMILY_LENGTH_BYTES = 5;
const BACKSLASH = 0x5c;
const QUOTE = 0x22;

function varintSize(n: number): number {
  let size = 1;
  while (n >= 128) {
    n = Math.floor(n / 128);
    size++;
  }
  return size;
}

/** Zigzag encoding of a signed integer (sint32, sint64), exact up to 2^52. */
function zigzag(n: number): number {
  return n >= 0 ? 2 * n : -2 * n - 1;
}

/** One classic histogram's samples, gathered from its `_bucket`, `_sum` and `_count` samples. */
interface ClassicHistogram {
  readonly labels: LabelSet;
  readonly buckets: Array<{ bound: number; count: number; exemplar?: Exemplar }>;
  sum: number;
  count: number;
}

/**
 * Groups a classic histogram family's samples (`_bucket` with `le` as the last label, `_sum`,
 * `_count`) per label set, in the order first seen.
 */
function classicHistograms(samples: readonly Sample[]): ClassicHistogram[] {
  const byLabels = new Map<string, ClassicHistogram>();
  const get = (labels: LabelSet): ClassicHistogram => {
    let h = byLabels.get(labels.text);
    if (h === undefined) {
      h = { labels, buckets: [], sum: 0, count: 0 };
      byLabels.set(labels.text, h);
    }
    return h;
  };
  for (const s of samples) {
    if (s.suffix === '_bucket') {
      const base = s.labels.parent ?? s.labels;
      const m = /^le="(.*)"$/.exec(s.labels.addedText);
      if (m === null) continue;
      const bucket = { bound: parseValue(m[1]!), count: s.value };
      get(base).buckets.push(s.exemplar ? { ...bucket, exemplar: s.exemplar } : bucket);
    } else if (s.suffix === '_sum') get(s.labels).sum = s.value;
    else if (s.suffix === '_count') get(s.labels).count = s.value;
  }
  return [...byLabels.values()];
}

/** {@link step} renders up to a budget of samples, {@link take} returns the finished families' bytes. */
class ProtoRenderer {
  private family = 0;
  private sample = 0;
  private inFamily = false;
  private classic: ClassicHistogram[] | undefined;
  private createdMs: number | undefined;
  private readonly blocks = new BlockPool();
  private block: Buffer = this.blocks.first();
  private off = 0;
  /** Start in `block` of the finished bytes not yet taken. */
  private doneStart = 0;
  /** Where the current family's reserved length bytes start, in `block` or in `pending[0]`. */
  private familyStart = 0;
  /** Start in `block` of the current family's bytes in this block. */
  private familySegment = 0;
  /** Bytes of the current family (after its length) in earlier blocks. */
  private familyEarlier = 0;
  /** The current family's slices in earlier blocks. */
  private pending: Buffer[] = [];
  /** Finished slices not yet taken, before `block`'s. */
  private out: Buffer[] = [];
  /** Parent label sets seen in this render: true once, their pairs from the second use on. */
  private readonly parents = new Map<LabelSet, Buffer | true>();

  constructor(private readonly families: readonly Family[]) {}

  step(budget: number): boolean {
    let left = budget;
    const families = this.families;
    while (this.family < families.length) {
      const fam = families[this.family]!;
      if (!this.inFamily) this.startFamily(fam);
      left -= this.renderSamples(fam, left);
      if (this.sample < (this.classic ?? fam.samples).length) return false;
      this.finishFamily();
      this.family++;
      this.sample = 0;
      if (left <= 0 && this.family < families.length) return false;
    }
    return true;
  }

  /** Renders up to `budget` more metrics (whole classic histograms); returns how many. */
  private renderSamples(fam: Family, budget: number): number {
    const from = this.sample;
    const classic = this.classic;
    const samples = fam.samples;
    const end = Math.min((classic ?? samples).length, from + budget);
    if (classic !== undefined) for (let i = from; i < end; i++) this.classicMetric(classic[i]!);
    else {
      const type = TYPES[fam.desc.kind];
      for (let i = from; i < end; i++) this.metric(samples[i]!, type);
    }
    this.sample = end;
    return end - from;
  }

  /**
   * The caller is done with every slice taken so far: blocks may be written again, unless a family
   * still in progress has bytes in them (it spans blocks until its length is written).
   */
  recycle(): void {
    if (this.pending.length > 0) return;
    if (!this.inFamily && this.off === this.doneStart) {
      this.off = 0;
      this.doneStart = 0;
    }
    this.blocks.release();
  }

  take(): Buffer[] {
    const out = this.out;
    this.out = [];
    const end = this.finishedEnd();
    if (end > this.doneStart) out.push(this.block.subarray(this.doneStart, end));
    this.doneStart = Math.max(this.doneStart, end);
    return out;
  }

  /** Where the finished bytes of the current block end: an open family's bytes are not. */
  private finishedEnd(): number {
    if (!this.inFamily) return this.off;
    return this.pending.length === 0 ? this.familyStart : this.doneStart;
  }

  private startFamily(fam: Family): void {
    const desc = fam.desc;
    // Two tags, two lengths of up to 5 bytes and the type: 32 bytes besides the UTF-8.
    this.room(FAMILY_LENGTH_BYTES + 32 + 3 * (desc.name.length + desc.help.length));
    this.inFamily = true;
    this.familyStart = this.off;
    this.familySegment = this.off;
    this.familyEarlier = 0;
    this.off += FAMILY_LENGTH_BYTES;
    this.stringField(FAMILY.name, desc.name);
    this.stringField(FAMILY.help, desc.help);
    this.varintField(FAMILY.type, TYPES[desc.kind]);
    const classicHistogram = desc.kind === 'histogram' && fam.samples.some((s) => s.suffix !== undefined);
    this.classic = classicHistogram ? classicHistograms(fam.samples) : undefined;
    this.createdMs = desc.kind === 'counter' || desc.kind === 'histogram' ? fam.createdMs : undefined;
  }

  private finishFamily(): void {
    this.inFamily = false;
    this.classic = undefined;
    if (this.pending.length === 0) {
      // The whole family is in this block: write its length and close the unused reserved bytes.
      const start = this.familyStart;
      const length = this.off - start - FAMILY_LENGTH_BYTES;
      const size = varintSize(length);
      this.block.copyWithin(start + size, start + FAMILY_LENGTH_BYTES, this.off);
      this.off -= FAMILY_LENGTH_BYTES - size;
      writeVarint(this.block, start, length);
      return;
    }
    const first = this.pending[0]!;
    const length = this.familyEarlier - FAMILY_LENGTH_BYTES + (this.off - this.familySegment);
    const size = varintSize(length);
    writeVarint(first, FAMILY_LENGTH_BYTES - size, length);
    this.pending[0] = first.subarray(FAMILY_LENGTH_BYTES - size);
    this.out.push(...this.pending, this.block.subarray(this.familySegment, this.off));
    this.pending = [];
    this.doneStart = this.off;
  }

  /** One sample as a Metric (gauge, counter, or native histogram). */
  private metric(s: Sample, type: number): void {
    const h = s.histogram;
    const labels = s.labels;
    // 24 for a created timestamp.
    let bound = 88 + 6 * labels.text.length;
    // Per bucket at most a 10-byte delta and a share of a 14-byte span (one per 4 buckets at worst).
    if (h !== undefined) bound += 160 + 16 * (h.positive.length + h.negative.length);
    if (s.exemplar !== undefined) bound += 96 + 6 * s.exemplar.labels.text.length;
    this.room(bound);
    this.byte(FAMILY.metric);
    const metricAt = this.open();
    this.labels(labels, METRIC.label);
    if (h !== undefined) {
      this.byte(METRIC.histogram);
      const at = this.open();
      this.nativeHistogram(h, s.exemplar);
      this.close(at);
    } else {
      this.byte(type === TYPES.counter ? METRIC.counter : METRIC.gauge);
      const at = this.open();
      this.doubleField(COUNTER.value, s.value);
      if (type === TYPES.counter && s.exemplar !== undefined) {
        this.byte(COUNTER.exemplar);
        this.exemplar(s.exemplar);
      }
      if (type === TYPES.counter) this.created(COUNTER.created);
      this.close(at);
    }
    this.close(metricAt);
  }

  private classicMetric(h: ClassicHistogram): void {
    let bound = 120 + 6 * h.labels.text.length + 24 * h.buckets.length;
    for (const b of h.buckets) if (b.exemplar) bound += 96 + 6 * b.exemplar.labels.text.length;
    this.room(bound);
    this.byte(FAMILY.metric);
    const metricAt = this.open();
    this.labels(h.labels, METRIC.label);
    this.byte(METRIC.histogram);
    const at = this.open();
    this.varintField(HISTOGRAM.count, h.count);
    this.doubleField(HISTOGRAM.sum, h.sum);
    for (const b of h.buckets) this.bucket(b.count, b.bound, b.exemplar);
    this.created(HISTOGRAM.created);
    this.close(at);
    this.close(metricAt);
  }

  private bucket(count: number, upperBound: number, exemplar: Exemplar | undefined): void {
    this.byte(HISTOGRAM.bucket);
    const at = this.open();
    this.varintField(BUCKET.count, count);
    this.doubleField(BUCKET.bound, upperBound);
    if (exemplar !== undefined) {
      this.byte(BUCKET.exemplar);
      this.exemplar(exemplar);
    }
    this.close(at);
  }

  private nativeHistogram(h: NativeHistogramSnapshot, exemplar: Exemplar | undefined): void {
    this.varintField(HISTOGRAM.count, h.count);
    this.doubleField(HISTOGRAM.sum, h.sum);
    // Prometheus 2.42 reads a native histogram's exemplars from its classic buckets only: one
    // +Inf bucket (holding every observation, so it is true as a classic bucket too) carries it.
    if (exemplar !== undefined) this.bucket(h.count, Number.POSITIVE_INFINITY, exemplar);
    this.varintField(HISTOGRAM.schema, zigzag(h.schema));
    this.doubleField(HISTOGRAM.zeroThreshold, h.zeroThreshold);
    this.varintField(HISTOGRAM.zeroCount, h.zeroCount);
    this.buckets(h.negativeOffset, h.negative, NEGATIVE);
    const empty = h.zeroCount === 0 && !h.positive.some((c) => c > 0) && !h.negative.some((c) => c > 0);
    if (empty) {
      // A span of length 0, as client_golang writes: newer scrapers then see a native
      // histogram even without observations and a zero threshold of 0.
      this.span(HISTOGRAM.positiveSpan, 0, 0);
    } else this.buckets(h.positiveOffset, h.positive, POSITIVE);
    this.created(HISTOGRAM.created);
    // Newer Prometheus versions read native histograms' exemplars here (2.42 skips the field).
    if (exemplar !== undefined && exemplar.timestampMs !== undefined) {
      this.varint(HISTOGRAM.exemplars);
      this.exemplar(exemplar);
    }
  }

  /** Spans and deltas of one sign's dense counts ({@link denseSpans}). */
  private buckets(offset: number, counts: readonly number[], tags: { span: number; delta: number }): void {
    const { starts, lengths } = denseSpans(counts);
    if (starts.length === 0) return;
    let lastEnd = 0;
    for (let k = 0; k < starts.length; k++) {
      const spanOffset = k === 0 ? offset + starts[k]! : starts[k]! - lastEnd;
      lastEnd = starts[k]! + lengths[k]!;
      this.span(tags.span, zigzag(spanOffset), lengths[k]!);
    }
    this.byte(tags.delta);
    const at = this.open();
    let previous = 0;
    for (let k = 0; k < starts.length; k++) {
      for (let j = starts[k]!; j < starts[k]! + lengths[k]!; j++) {
        const c = counts[j]!;
        this.varint(zigzag(c - previous));
        previous = c;
      }
    }
    this.close(at);
  }

  private span(field: number, offset: number, length: number): void {
    this.byte(field);
    const at = this.open();
    this.varintField(SPAN.offset, offset);
    this.varintField(SPAN.length, length);
    this.close(at);
  }

  private exemplar(e: Exemplar): void {
    const at = this.open();
    this.labels(e.labels, EXEMPLAR.label);
    this.doubleField(EXEMPLAR.value, e.value);
    if (e.timestampMs !== undefined) {
      this.byte(EXEMPLAR.timestamp);
      this.timestamp(e.timestampMs);
    }
    this.close(at);
  }

  private created(field: number): void {
    if (this.createdMs === undefined) return;
    this.byte(field);
    this.timestamp(this.createdMs);
  }

  /** A google.protobuf.Timestamp message, after its field's tag. */
  private timestamp(ms: number): void {
    const seconds = Math.floor(ms / 1000);
    const nanos = Math.round((ms - seconds * 1000) * 1e6);
    const ts = this.open();
    if (seconds !== 0) this.varintField(TIMESTAMP.seconds, seconds);
    if (nanos !== 0) this.varintField(TIMESTAMP.nanos, nanos);
    this.close(ts);
  }

  /**
   * A set's pairs as LabelPair fields. Collectors extend one set per station by a label or two
   * per sample, so a parent's encoding is kept from its second use on and copied; a set whose
   * parent is new (built per sample) is parsed whole, with no copy kept.
   */
  private labels(set: LabelSet, field: number): void {
    if (set.text === '') return;
    const parent = set.parent;
    if (parent === undefined || parent.text === '') {
      this.pairs(set.text, field, 0);
      return;
    }
    const known = this.parents.get(parent);
    if (known === undefined) {
      this.parents.set(parent, true);
      this.pairs(set.text, field, 0);
      return;
    }
    if (known === true) {
      const start = this.off;
      this.pairs(parent.text, field, 0);
      this.parents.set(parent, Buffer.from(this.block.subarray(start, this.off)));
    } else this.bytes(known);
    this.pairs(set.text, field, set.addedFrom);
  }

  /** Escaped `name="value"` pairs (a LabelSet's text from `from` on) as LabelPair fields. */
  private pairs(text: string, field: number, from: number): void {
    const escaped = text.indexOf('\\', from) >= 0;
    let pos = from;
    while (pos < text.length) {
      const eq = text.indexOf('="', pos);
      this.byte(field);
      const pairAt = this.open();
      this.byte(PAIR.name);
      const nameAt = this.open();
      this.ascii(text, pos, eq);
      this.close(nameAt);
      this.byte(PAIR.value);
      const valueAt = this.open();
      let end: number;
      if (!escaped) {
        end = text.indexOf('"', eq + 2);
        this.string(text, eq + 2, end);
      } else end = this.unescape(text, eq + 2);
      this.close(valueAt);
      this.close(pairAt);
      pos = end + 2; // past the closing quote and the comma
    }
  }

  /** Writes an escaped value up to its closing quote, unescaped; returns the quote's index. */
  private unescape(text: string, from: number): number {
    let i = from;
    let run = from;
    for (;;) {
      const c = text.charCodeAt(i);
      if (c === QUOTE) break;
      if (c === BACKSLASH) {
        this.string(text, run, i);
        const next = text.charCodeAt(i + 1);
        this.byte(next === 0x6e ? 0x0a : next);
        i += 2;
        run = i;
      } else i++;
    }
    this.string(text, run, i);
    return i;
  }

  /** Opens a length-delimited field: one byte is reserved for its length. */
  private open(): number {
    return this.off++;
  }

  /** Writes the length of the field opened at `at`, moving its bytes if the length needs more than one. */
  private close(at: number): void {
    const length = this.off - at - 1;
    if (length < 128) {
      this.block[at] = length;
      return;
    }
    const size = varintSize(length);
    this.block.copyWithin(at + size, at + 1, this.off);
    this.off += size - 1;
    writeVarint(this.block, at, length);
  }

  private varintField(field: number, n: number): void {
    this.byte(field);
    this.varint(n);
  }

  private stringField(field: number, text: string): void {
    this.byte(field);
    const at = this.open();
    this.string(text, 0, text.length);
    this.close(at);
  }

  private doubleField(field: number, v: number): void {
    this.byte(field);
    this.double(v);
  }

  private byte(b: number): void {
    this.block[this.off++] = b;
  }

  private varint(n: number): void {
    this.off = writeVarint(this.block, this.off, n);
  }

  private double(v: number): void {
    this.block.writeDoubleLE(v, this.off);
    this.off += 8;
  }

  private bytes(b: Buffer): void {
    this.block.set(b, this.off);
    this.off += b.length;
  }

  /** A label name (ASCII by the naming rules). */
  private ascii(text: string, from: number, to: number): void {
    const block = this.block;
    let off = this.off;
    for (let i = from; i < to; i++) block[off++] = text.charCodeAt(i);
    this.off = off;
  }

  private string(text: string, from: number, to: number): void {
    const block = this.block;
    let off = this.off;
    let i = from;
    // Short ASCII runs byte by byte: cheaper than a call into the encoder.
    for (; i < to; i++) {
      const c = text.charCodeAt(i);
      if (c >= 0x80) break;
      block[off++] = c;
    }
    if (i < to) off += block.write(text.slice(i, to), off, 'utf8');
    this.off = off;
  }

  /**
   * Makes room for `bytes` more in the current block. A family that does not fit goes on in a
   * new block; its bytes so far wait in `pending` until its length is known.
   */
  private room(bytes: number): void {
    if (this.off + bytes <= this.block.length) return;
    if (this.inFamily) {
      if (this.pending.length === 0 && this.familyStart > this.doneStart) {
        this.out.push(this.block.subarray(this.doneStart, this.familyStart));
      }
      this.pending.push(this.block.subarray(this.familySegment, this.off));
      this.familyEarlier += this.off - this.familySegment;
    } else if (this.off > this.doneStart) this.out.push(this.block.subarray(this.doneStart, this.off));
    this.block = this.blocks.next(this.block, bytes);
    this.off = 0;
    this.doneStart = 0;
    this.familySegment = 0;
  }
}

/** Writes a varint at `off`; returns the offset after it. Exact up to 2^53. */
function writeVarint(buf: Buffer, off: number, n: number): number {
  while (n >= 128) {
    buf[off++] = (n % 128) | 0x80;
    n = Math.floor(n / 128);
  }
  buf[off++] = n;
  return off;
}

/** Renders families synchronously as delimited MetricFamily messages. Families without samples are left out. */
export function renderProtobufToBuffer(families: readonly Family[]): Buffer {
  const r = new ProtoRenderer(withSamples(families));
  r.step(Number.POSITIVE_INFINITY);
  return Buffer.concat(r.take());
}

/** A MetricFamily without metrics says nothing (client_golang does not write one either). */
function withSamples(families: readonly Family[]): readonly Family[] {
  return families.every((f) => f.samples.length > 0)
    ? families
    : families.filter((f) => f.samples.length > 0);
}

/**
 * {@link renderProtobufToBuffer} step by step into reused blocks, like `renderFamiliesInto`
 * (rendered whole, 13.5 MB at 100k series).
 */
export async function renderProtobufInto(
  families: readonly Family[],
  opts: StreamOptions,
): Promise<{ readonly samples: number; readonly busyMs: number }> {
  const busyMs = await streamSteps(new ProtoRenderer(withSamples(families)), opts);
  return { samples: seriesOf(families), busyMs };
}

/** Spans of dense counts; up to two empty buckets stay inside a span (an offset costs as much). */
function denseSpans(counts: readonly number[]): { starts: number[]; lengths: number[] } {
  const starts: number[] = [];
  const lengths: number[] = [];
  let i = 0;
  while (i < counts.length) {
    if (counts[i] === 0) {
      i++;
      continue;
    }
    const end = spanEnd(counts, i);
    starts.push(i);
    lengths.push(end - i);
    i = end;
  }
  return { starts, lengths };
}

/** The end of the span that starts at `start`: past its last non-empty bucket. */
function spanEnd(counts: readonly number[], start: number): number {
  const n = counts.length;
  let end = start + 1;
  for (;;) {
    while (end < n && counts[end]! > 0) end++;
    let gap = end;
    while (gap < n && counts[gap] === 0) gap++;
    if (gap >= n || gap - end > 2) return end;
    end = gap;
  }
}
