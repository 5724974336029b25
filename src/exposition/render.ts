/**
 * The Prometheus text format 0.0.4 and OpenMetrics 1.0. Label text is escaped once per topology,
 * so a sample costs a copy of its labels and the formatting of its value.
 */
import { LoopYielder } from '../util/loop-yield.ts';
import type { Exemplar, Family, FamilyDesc, Sample } from './model.ts';

/** A text exposition format: Prometheus text 0.0.4 or OpenMetrics 1.0. */
export type TextFormat = 'text' | 'openmetrics';

/** An exposition format: a text one, or delimited protobuf (see protobuf.ts). */
export type ExpositionFormat = TextFormat | 'protobuf';

/** A few milliseconds of work: steps of 20,000 samples (3 MB) often blocked the loop over 100 ms in a collection. */
const DEFAULT_YIELD_EVERY = 5_000;

/** Formats a sample value: integers plainly, floats shortest round-trip, `NaN`, `+Inf`, `-Inf`. */
export function formatValue(value: number): string {
  if (Number.isFinite(value)) return `${value}`;
  if (value === Number.POSITIVE_INFINITY) return '+Inf';
  if (value === Number.NEGATIVE_INFINITY) return '-Inf';
  return 'NaN';
}

/** A value as {@link formatValue} writes it. */
export function parseValue(text: string): number {
  if (text === '+Inf') return Number.POSITIVE_INFINITY;
  if (text === '-Inf') return Number.NEGATIVE_INFINITY;
  return Number(text);
}

function escapeHelp(help: string, format: TextFormat): string {
  // Only OpenMetrics escapes double quotes in HELP; the text format keeps them verbatim.
  const special = format === 'openmetrics' ? /[\\"\n]/ : /[\\\n]/;
  if (!special.test(help)) return help;
  const escaped = help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
  return format === 'openmetrics' ? escaped.replace(/"/g, '\\"') : escaped;
}

const TOTAL = '_total';

/** The family's name on HELP/TYPE/UNIT lines: OpenMetrics counters drop `_total`. */
function familyName(desc: FamilyDesc, format: TextFormat): string {
  if (format === 'openmetrics' && desc.kind === 'counter' && desc.name.endsWith(TOTAL)) {
    return desc.name.slice(0, -TOTAL.length);
  }
  return desc.name;
}

/** The metric name on samples: OpenMetrics counter samples always end in `_total`. */
export function sampleName(desc: FamilyDesc, format: TextFormat): string {
  if (format === 'openmetrics' && desc.kind === 'counter' && !desc.name.endsWith(TOTAL)) {
    return desc.name + TOTAL;
  }
  return desc.name;
}

/** True when a family renders to the same bytes in both text formats. */
export function sameInBothFormats(family: Family): boolean {
  const desc = family.desc;
  const unitLine = desc.unit !== undefined && desc.name.endsWith(`_${desc.unit}`);
  // OpenMetrics renames counters, escapes quotes in HELP and writes UNIT lines.
  if (desc.kind === 'counter' || desc.help.includes('"') || unitLine) return false;
  // Exemplars are OpenMetrics only.
  return desc.kind !== 'histogram' || !family.samples.some((s) => s.exemplar !== undefined);
}

/** ` # {labels} value timestamp`: an exemplar as OpenMetrics writes it after a sample's value. */
function exemplarText(e: Exemplar): string {
  const ts = e.timestampMs === undefined ? '' : ` ${formatValue(e.timestampMs / 1000)}`;
  return ` # {${e.labels.text}} ${formatValue(e.value)}${ts}`;
}

function header(desc: FamilyDesc, format: TextFormat): string {
  const name = familyName(desc, format);
  // `info` renders as a gauge in both formats: valid everywhere and one series name per family.
  const type = desc.kind === 'info' ? 'gauge' : desc.kind;
  let out = `# HELP ${name} ${escapeHelp(desc.help, format)}\n# TYPE ${name} ${type}\n`;
  // OpenMetrics parsers reject a UNIT that is not a suffix of the family name; a bad
  // description must not break the whole scrape, so such a UNIT line is left out.
  if (format === 'openmetrics' && desc.unit && name.endsWith(`_${desc.unit}`)) {
    out += `# UNIT ${name} ${desc.unit}\n`;
  }
  return out;
}

/**
 * The `_created` sample that follows each `_total` of an OpenMetrics counter. Counters only: the
 * exporter's one histogram with a created time is native, which no text format carries.
 */
function createdLine(fam: Family, format: TextFormat): { name: string; value: string } | undefined {
  if (format !== 'openmetrics' || fam.desc.kind !== 'counter' || fam.createdMs === undefined)
    return undefined;
  return { name: `${familyName(fam.desc, format)}_created`, value: formatValue(fam.createdMs / 1000) };
}

const FIRST_BLOCK = 16 * 1024;
const MAX_BLOCK = 1024 * 1024;

/**
 * The output blocks of a stepped render, each twice the last up to {@link MAX_BLOCK}, written again
 * once consumed ({@link release}): the whole body left to the garbage collector (14 MB per 100k
 * series) stayed resident until a full collection.
 */
export class BlockPool {
  private retired: Buffer[] = [];
  private readonly spare: Buffer[] = [];

  /** The first block of a render. */
  first(): Buffer {
    return Buffer.allocUnsafe(FIRST_BLOCK);
  }

  /** The block to write after `full`, with room for at least `bytes`; `full` is retired. */
  next(full: Buffer, bytes: number): Buffer {
    const size = Math.max(Math.min(MAX_BLOCK, full.length * 2), bytes);
    this.retired.push(full);
    const i = this.spare.findIndex((b) => b.length >= size);
    return i >= 0 ? this.spare.splice(i, 1)[0]! : Buffer.allocUnsafe(size);
  }

  /** Every slice of the retired blocks was consumed: they may be written again. */
  release(): void {
    this.spare.push(...this.retired);
    this.retired = [];
  }
}

const CLOSE_BRACE = 0x7d;
const SPACE = 0x20;
const NEWLINE = 0x0a;

/**
 * Writes UTF-8 straight into blocks, no string per line: under a container's memory limit V8
 * keeps a small young generation, and a body built from strings spent most of its time in GC.
 */
class Renderer {
  private family = 0;
  private sample = 0;
  private headerDone = false;
  private name = '';
  private suffix: string | undefined = undefined;
  private kind: FamilyDesc['kind'] = 'gauge';
  /** `name ` and `name{` of the current family and suffix. */
  private bare: Buffer = Buffer.alloc(0);
  private braced: Buffer = Buffer.alloc(0);
  private readonly blocks = new BlockPool();
  private block: Buffer = this.blocks.first();
  /** Where the untaken bytes start in `block`, and where the next byte goes. */
  private start = 0;
  private off = 0;
  private full: Buffer[] = [];
  private created: { readonly name: string; readonly value: string } | undefined;

  constructor(
    private readonly families: readonly Family[],
    private readonly format: TextFormat,
  ) {}

  step(budget: number): boolean {
    let left = budget;
    const families = this.families;
    while (this.family < families.length) {
      const fam = families[this.family]!;
      if (fam.desc.native) {
        // Protobuf only: a text scrape keeps every other family.
        this.family++;
        continue;
      }
      if (!this.headerDone) this.startFamily(fam);
      const samples = fam.samples;
      let i = this.sample;
      const end = Math.min(samples.length, i + left);
      for (; i < end; i++) this.line(samples[i]!);
      left -= i - this.sample;
      if (i < samples.length) {
        this.sample = i;
        return false;
      }
      this.family++;
      this.sample = 0;
      this.headerDone = false;
      if (left <= 0 && this.family < families.length) return false;
    }
    return true;
  }

  take(): Buffer[] {
    const out = this.full;
    this.full = [];
    if (this.off > this.start) out.push(this.block.subarray(this.start, this.off));
    this.start = this.off;
    return out;
  }

  private line(s: Sample): void {
    if (s.exemplar !== undefined || this.created !== undefined) {
      this.slowLine(s);
      return;
    }
    if (s.suffix !== this.suffix) this.setSuffix(s.suffix);
    const labels = s.labels.text;
    const value = formatValue(s.value);
    const prefix = labels === '' ? this.bare : this.braced;
    // UTF-8 takes at most 3 bytes per UTF-16 unit; the value is ASCII.
    this.room(prefix.length + 3 * labels.length + value.length + 3);
    const block = this.block;
    let off = this.off;
    block.set(prefix, off);
    off += prefix.length;
    if (labels !== '') {
      off += block.write(labels, off);
      block[off++] = CLOSE_BRACE;
      block[off++] = SPACE;
    }
    for (let k = 0; k < value.length; k++) block[off++] = value.charCodeAt(k);
    block[off++] = NEWLINE;
    this.off = off;
  }

  /** A sample with an exemplar. Few samples take this way, so it builds a string. */
  private slowLine(s: Sample): void {
    // OpenMetrics allows exemplars on counters and histogram buckets only (Prometheus refuses a
    // scrape with one on a gauge); the text format has none.
    const om = this.format === 'openmetrics' && (this.kind === 'counter' || this.kind === 'histogram');
    const exemplar = om && s.exemplar !== undefined ? exemplarText(s.exemplar) : '';
    const name = s.suffix ? this.name + s.suffix : this.name;
    const labels = s.labels.text === '' ? '' : `{${s.labels.text}}`;
    const created = this.created === undefined ? '' : `${this.created.name}${labels} ${this.created.value}\n`;
    this.text(`${name}${labels} ${formatValue(s.value)}${exemplar}\n${created}`);
  }

  private text(text: string): void {
    this.room(3 * text.length);
    this.off += this.block.write(text, this.off);
  }

  private room(bytes: number): void {
    if (this.off + bytes <= this.block.length) return;
    if (this.off > this.start) this.full.push(this.block.subarray(this.start, this.off));
    this.block = this.blocks.next(this.block, bytes);
    this.start = 0;
    this.off = 0;
  }

  recycle(): void {
    if (this.off === this.start && this.full.length === 0) {
      this.start = 0;
      this.off = 0;
    }
    this.blocks.release();
  }

  private startFamily(fam: Family): void {
    this.kind = fam.desc.kind;
    this.text(header(fam.desc, this.format));
    this.headerDone = true;
    this.name = sampleName(fam.desc, this.format);
    this.created = createdLine(fam, this.format);
    this.setSuffix(undefined);
  }

  private setSuffix(suffix: string | undefined): void {
    this.suffix = suffix;
    const full = suffix ? this.name + suffix : this.name;
    this.bare = Buffer.from(`${full} `, 'utf8');
    this.braced = Buffer.from(`${full}{`, 'utf8');
  }
}

/** Renders families synchronously, without `# EOF`; families without samples keep HELP and TYPE. */
export function renderFamiliesToBuffer(families: readonly Family[], format: TextFormat): Buffer {
  const r = new Renderer(families, format);
  r.step(Number.POSITIVE_INFINITY);
  return Buffer.concat(r.take());
}

/** Options of the stepped renders ({@link renderFamiliesInto}, {@link streamSteps}). */
export interface StreamOptions {
  /** Samples between yields to the event loop (default {@link DEFAULT_YIELD_EVERY}). */
  readonly yieldEvery?: number;
  /** The exporter's shared yielder to the event loop; default one of this render's own. */
  readonly yielder?: LoopYielder;
  /** Takes a step's bytes; they are written over once the returned promise settles. */
  readonly consume: (chunks: Buffer[]) => Promise<void>;
}

/** Series the families put in Prometheus: one per sample, a native histogram included. */
export function seriesOf(families: readonly Family[]): number {
  let series = 0;
  for (const f of families) series += f.samples.length;
  return series;
}

/** Renders families step by step into `consume`, which must copy what it keeps. */
export async function renderFamiliesInto(
  families: readonly Family[],
  format: TextFormat,
  opts: StreamOptions,
): Promise<{ readonly samples: number; readonly busyMs: number }> {
  const busyMs = await streamSteps(new Renderer(families, format), opts);
  return { samples: seriesOf(families), busyMs };
}

/** An incremental renderer, text or protobuf. */
export interface SteppedRenderer {
  /** Renders up to `budget` samples; true when everything is rendered. */
  step(budget: number): boolean;
  /** The bytes rendered since the last call. */
  take(): Buffer[];
  /** The caller is done with every slice taken so far: their blocks may be written again. */
  recycle(): void;
}

/** Runs a renderer to the end; returns its time rendering, without the yields and `consume`. */
export async function streamSteps(r: SteppedRenderer, opts: StreamOptions): Promise<number> {
  const every = Math.max(1, opts.yieldEvery ?? DEFAULT_YIELD_EVERY);
  const yielder = opts.yielder ?? new LoopYielder();
  let busyMs = 0;
  for (;;) {
    const started = performance.now();
    const done = r.step(every);
    const chunks = r.take();
    busyMs += performance.now() - started;
    if (chunks.length > 0) await opts.consume(chunks);
    r.recycle();
    if (done) break;
    await yielder.yieldToLoop();
  }
  return busyMs;
}
