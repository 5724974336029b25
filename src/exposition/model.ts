/**
 * The exposition model shared by collectors and renderers: label sets are escaped once per
 * topology and reused by every sample and render.
 */

import type { NativeHistogramSnapshot } from './native-histogram.ts';

/** Kind of a metric family as exposed. `info` renders as a gauge in the text format. */
export type MetricKind = 'gauge' | 'counter' | 'histogram' | 'info';

/** A metric family's description: everything but its samples. */
export interface FamilyDesc {
  /** Name on samples in the text format: counters end in `_total`, histograms carry the base name. */
  readonly name: string;
  readonly kind: MetricKind;
  /** Says where the value comes from. */
  readonly help: string;
  /** Base unit (e.g. `seconds`) for the OpenMetrics `# UNIT` line; the name must end with it. */
  readonly unit?: string;
  /** Label names its samples carry, for the generated metrics reference. */
  readonly labels?: readonly string[];
  /** A native histogram family: protobuf only, the text formats leave it out. */
  readonly native?: boolean;
}

/** Escapes a label value for the Prometheus text and OpenMetrics formats. */
export function escapeLabelValue(value: string): string {
  if (!/[\\"\n]/.test(value)) return value;
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/** An immutable, escaped label set, built once per topology and extended with {@link LabelSet.with}. */
export class LabelSet {
  static readonly EMPTY = new LabelSet('', undefined, []);

  private constructor(
    /** Escaped `name="value"` pairs joined by commas, without braces. */
    readonly text: string,
    /** The set this one extends (undefined for the empty set). */
    readonly parent: LabelSet | undefined,
    /** The name (or names, for a concatenation) this set adds to `parent`. */
    private readonly added: string | readonly string[],
  ) {}

  /** Label names in order; computed on demand, as an array per set would cost a poll's worth. */
  get names(): readonly string[] {
    const parts: Array<string | readonly string[]> = [];
    for (let set: LabelSet | undefined = this; set !== undefined; set = set.parent) parts.push(set.added);
    return parts.reverse().flat();
  }

  /** A label set from escaped text read back from a rendered body, with its label names. */
  static fromText(text: string, names: readonly string[]): LabelSet {
    return text === '' ? LabelSet.EMPTY : new LabelSet(text, undefined, names);
  }

  /** Builds a label set from pairs; order is kept as given. */
  static of(pairs: Readonly<Record<string, string>>): LabelSet {
    let set = LabelSet.EMPTY;
    for (const [k, v] of Object.entries(pairs)) set = set.with(k, v);
    return set;
  }

  /** The escaped pairs this set adds to its {@link parent}, as in {@link text}. */
  get addedText(): string {
    return this.text.slice(this.addedFrom);
  }

  /** Where in {@link text} the pairs this set adds to its {@link parent} start. */
  get addedFrom(): number {
    const baseLength = this.parent?.text.length ?? 0;
    return baseLength === 0 ? 0 : baseLength + 1;
  }

  /** A new label set with one more label appended (the value is escaped here). */
  with(name: string, value: string): LabelSet {
    const pair = `${name}="${escapeLabelValue(value)}"`;
    return new LabelSet(this.text === '' ? pair : `${this.text},${pair}`, this, name);
  }

  /** A new label set that appends another's (already escaped) pairs. */
  concat(other: LabelSet): LabelSet {
    if (other.text === '') return this;
    if (this.text === '') return other;
    return new LabelSet(`${this.text},${other.text}`, this, other.names);
  }
}

/** A reference from a sample to one event behind it; OpenMetrics and protobuf only. */
export interface Exemplar {
  readonly labels: LabelSet;
  readonly value: number;
  /** When the event happened (epoch ms), if known. */
  readonly timestampMs?: number;
}

/** OpenMetrics: an exemplar's label names and values together hold at most 128 UTF-8 characters. */
const EXEMPLAR_MAX_RUNES = 128;

/** Undefined when the labels are longer than OpenMetrics allows: a cut serial names another unit. */
export function exemplarOf(
  pairs: Readonly<Record<string, string>>,
  event: { readonly value: number; readonly timestampMs?: number },
): Exemplar | undefined {
  let runes = 0;
  for (const [k, v] of Object.entries(pairs)) runes += [...k].length + [...v].length;
  if (runes > EXEMPLAR_MAX_RUNES) return undefined;
  return { labels: LabelSet.of(pairs), ...event };
}

/** One sample; `suffix` for classic histogram parts; a native histogram's `value` is its count. */
export interface Sample {
  readonly labels: LabelSet;
  readonly value: number;
  readonly suffix?: string;
  readonly histogram?: NativeHistogramSnapshot;
  readonly exemplar?: Exemplar;
}

/** A family with its samples, ready to render. Families with no samples are still described. */
export interface Family {
  readonly desc: FamilyDesc;
  readonly samples: readonly Sample[];
  /**
   * When a counter or histogram family's series started counting (epoch ms), so that a scraper
   * knows a series seen first at 1 counted that 1 after this time.
   */
  readonly createdMs?: number;
}
