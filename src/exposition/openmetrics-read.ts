/**
 * Reads the exporter's own OpenMetrics rendering back into families, for a late protobuf render:
 * the cache keeps those bytes gzipped anyway (about 1 MB per 100k series), while the families cost
 * about 20 MiB of heap. Descriptions, created times and native histograms come from the part's
 * {@link FamilyShape}s; values are shortest round-trip, so the protobuf bytes come out the same.
 */
import type { LoopYielder } from '../util/loop-yield.ts';
import { type Exemplar, type Family, type FamilyDesc, LabelSet, type Sample } from './model.ts';
import { parseValue, sampleName } from './render.ts';

/** What a part keeps of a family besides its OpenMetrics text. */
export type FamilyShape =
  | { readonly desc: FamilyDesc; readonly createdMs?: number; readonly native?: undefined }
  | { readonly native: Family };

/** The shapes of a part's families: descriptions and created times, native families whole. */
export function shapesOf(families: readonly Family[]): FamilyShape[] {
  return families.map((f) => {
    if (f.desc.native) return { native: f };
    return f.createdMs === undefined ? { desc: f.desc } : { desc: f.desc, createdMs: f.createdMs };
  });
}

/** Lines read between two yields to the event loop. */
const LINES_PER_TURN = 20_000;

/** Reads the families back from the part's OpenMetrics text (without `# EOF`) and its shapes. */
export async function readOpenMetrics(
  text: string,
  opts: { readonly shapes: readonly FamilyShape[]; readonly yielder: LoopYielder },
): Promise<Family[]> {
  const reader = new Reader(text, opts.shapes);
  while (!reader.step(LINES_PER_TURN)) await opts.yielder.yieldToLoop();
  return reader.families;
}

class Reader {
  readonly families: Family[] = [];
  private pos = 0;
  /** Index of the next shape. */
  private next = 0;
  private samples: Sample[] = [];
  private name = '';

  constructor(
    private readonly text: string,
    private readonly shapes: readonly FamilyShape[],
  ) {}

  /** Reads up to `budget` lines; true when the text is read (and the last family closed). */
  step(budget: number): boolean {
    const text = this.text;
    for (let n = 0; n < budget; n++) {
      if (this.pos >= text.length) {
        this.takeNatives();
        return true;
      }
      let end = text.indexOf('\n', this.pos);
      if (end < 0) end = text.length;
      if (text.startsWith('# HELP ', this.pos)) this.startFamily();
      else if (text.charCodeAt(this.pos) !== 0x23) this.sample(this.pos, end);
      this.pos = end + 1;
    }
    return false;
  }

  /** A HELP line opens the next text family, after any native ones before it. */
  private startFamily(): void {
    this.takeNatives();
    const shape = this.shapes[this.next++];
    if (shape === undefined || shape.native !== undefined)
      throw new Error('OpenMetrics text does not match its part');
    this.samples = [];
    this.name = sampleName(shape.desc, 'openmetrics');
    const family = { desc: shape.desc, samples: this.samples };
    this.families.push(shape.createdMs === undefined ? family : { ...family, createdMs: shape.createdMs });
  }

  private takeNatives(): void {
    for (let s = this.shapes[this.next]; s?.native !== undefined; s = this.shapes[++this.next])
      this.families.push(s.native);
  }

  /** `name{labels} value[ # {labels} value[ timestamp]]`; a counter's `_created` line is skipped. */
  private sample(start: number, end: number): void {
    const text = this.text;
    let i = start;
    while (i < end && text[i] !== '{' && text[i] !== ' ') i++;
    const name = text.slice(start, i);
    if (!name.startsWith(this.name)) return; // `_created`: the shape has the time
    const suffix = name.length > this.name.length ? name.slice(this.name.length) : undefined;
    let labels = LabelSet.EMPTY;
    if (text[i] === '{') {
      const read = readLabels(text, i + 1);
      labels = suffix === '_bucket' ? bucketLabels(read.labels) : read.labels;
      i = read.end + 1;
    }
    i++; // the space
    let valueEnd = text.indexOf(' ', i);
    if (valueEnd < 0 || valueEnd > end) valueEnd = end;
    const value = parseValue(text.slice(i, valueEnd));
    const exemplar = valueEnd < end ? readExemplar(text, { from: valueEnd + 3, end }) : undefined;
    const sample: Sample = suffix === undefined ? { labels, value } : { labels, value, suffix };
    this.samples.push(exemplar === undefined ? sample : { ...sample, exemplar });
  }
}

/** The label set whose text starts at `from` (after `{`), and where its `}` is. */
function readLabels(text: string, from: number): { labels: LabelSet; end: number } {
  const names: string[] = [];
  let i = from;
  while (text[i] !== '}') {
    const eq = text.indexOf('="', i);
    names.push(text.slice(i, eq));
    i = eq + 2;
    // The value ends at the first quote not escaped by a backslash.
    while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    if (text[i] === ',') i++;
  }
  return { labels: LabelSet.fromText(text.slice(from, i), names), end: i };
}

/** The series' labels extended by `le`, as the protobuf renderer groups buckets by them. */
function bucketLabels(labels: LabelSet): LabelSet {
  const names = labels.names;
  if (names.at(-1) !== 'le') return labels;
  const text = labels.text;
  const at = text.lastIndexOf('le="');
  const base = LabelSet.fromText(text.slice(0, Math.max(0, at - 1)), names.slice(0, -1));
  return base.with('le', text.slice(at + 4, -1));
}

/** ` # {labels} value[ timestamp]` from `{`: timestamps are whole milliseconds. */
function readExemplar(text: string, at: { readonly from: number; readonly end: number }): Exemplar {
  const { labels, end } = readLabels(text, at.from + 1);
  const [value = '', ts] = text.slice(end + 2, at.end).split(' ');
  const exemplar = { labels, value: parseValue(value) };
  return ts === undefined ? exemplar : { ...exemplar, timestampMs: Math.round(parseValue(ts) * 1000) };
}
