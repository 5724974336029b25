/**
 * The exposition model shared by collectors and renderers.
 *
 * Collectors describe metric families once and emit samples whose label sets are
 * pre-escaped {@link LabelSet}s, so that a topology's label text is escaped once and
 * reused by every sample and every render.
 */

import type { NativeHistogramSnapshot } from './native-histogram.ts';

/** Kind of a metric family as exposed. `info` renders as a gauge in the text format. */
export type MetricKind = 'gauge' | 'counter' | 'histogram' | 'info';

/** A metric family's description: everything but its samples. */
export interface FamilyDesc {
  /**
   * Full name as it appears on samples in the Prometheus text format: counters end in
   * `_total`, info metrics in `_info`, histograms carry the base name (samples add
   * `_bucket`, `_sum`, `_count`).
   */
  readonly name: string;
  readonly kind: MetricKind;
  /** HELP text: says where the value comes from. */
  readonly help: string;
  /** Base unit (e.g. `seconds`) for the OpenMetrics `# UNIT` line; the name must end with it. */
  readonly unit?: string;
  /** Label names its samples carry, for the generated metrics reference. */
  readonly labels?: readonly string[];
  /**
   * A native histogram family (its samples carry `histogram`): only the protobuf format carries
   * it; the text formats, which cannot, leave the whole family out.
   */
  readonly native?: boolean;
}

/** Escapes a label value for the Prometheus text and OpenMetrics formats. */
export function escapeLabelValue(value: string): string {
  // Fast path: most values need no escaping, and this runs once per label, not per scrape.
  if (!/[\\"\n]/.test(value)) return value;
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/**
 * An immutable, already-escaped label set. `text` is the inside of the braces
 * (`a="1",b="2"`), empty for no labels. Build once per topology, extend with {@link LabelSet.with}.
 */
export class LabelSet {
  static readonly EMPTY = new LabelSet('', undefined, []);

  private constructor(
    /** Escaped `name="value"` pairs joined by commas, without braces. */
    readonly text: string,
    /** The set this one extends, if any. */
    private readonly base: LabelSet | undefined,
    /** The name (or names, for a concatenation) this set adds to `base`. */
    private readonly added: string | readonly string[],
  ) {}

  /**
   * Label names in order, for tests and tooling. Computed on demand: a poll builds a label
   * set per series and window, and copying the names into each cost an array apiece.
   */
  get names(): readonly string[] {
    const parts: Array<string | readonly string[]> = [];
    for (let set: LabelSet | undefined = this; set !== undefined; set = set.base) parts.push(set.added);
    return parts.reverse().flat();
  }

  /**
   * A label set from text already escaped as in {@link text} (read back from a rendered body),
   * with its label names; it extends no other set.
   */
  static fromText(text: string, names: readonly string[]): LabelSet {
    return text === '' ? LabelSet.EMPTY : new LabelSet(text, undefined, names);
  }

  /** Builds a label set from pairs; order is kept as given. */
  static of(pairs: Readonly<Record<string, string>>): LabelSet {
    let set = LabelSet.EMPTY;
    for (const [k, v] of Object.entries(pairs)) set = set.with(k, v);
    return set;
  }

  /** The set this one extends (undefined for the empty set). */
  get parent(): LabelSet | undefined {
    return this.base;
  }

  /** The escaped pairs this set adds to its {@link parent}, as in {@link text}. */
  get addedText(): string {
    return this.text.slice(this.addedFrom);
  }

  /** Where in {@link text} the pairs this set adds to its {@link parent} start. */
  get addedFrom(): number {
    const baseLength = this.base?.text.length ?? 0;
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

/**
 * An exemplar: a reference from a sample to one event behind it (for a unit counter, the newest
 * unit's serial). Rendered in OpenMetrics and protobuf only, on counters and histograms.
 */
export interface Exemplar {
  readonly labels: LabelSet;
  readonly value: number;
  /** When the event happened (epoch ms), if known. */
  readonly timestampMs?: number;
}

/** OpenMetrics: an exemplar's label names and values together hold at most 128 UTF-8 characters. */
const EXEMPLAR_MAX_RUNES = 128;

/**
 * An exemplar with these labels, or undefined when they are longer than OpenMetrics allows (an
 * exemplar is left out rather than cut: a shortened serial would point at another unit).
 */
export function exemplarOf(
  pairs: Readonly<Record<string, string>>,
  event: { readonly value: number; readonly timestampMs?: number },
): Exemplar | undefined {
  let runes = 0;
  for (const [k, v] of Object.entries(pairs)) runes += [...k].length + [...v].length;
  if (runes > EXEMPLAR_MAX_RUNES) return undefined;
  return { labels: LabelSet.of(pairs), ...event };
}

/**
 * One sample. `suffix` is for classic histogram parts (`_bucket`, `_sum`, `_count`). A native
 * histogram's sample carries `histogram` (and `value` is its count).
 */
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
   * For a counter or histogram family: when every one of its series started counting (epoch
   * ms), the same for all of them (the exporter's start). Rendered as `created_timestamp` in
   * protobuf and as `_created` lines of counters in OpenMetrics, so that a scraper that reads
   * it knows a series seen first at 1 counted that 1 after this time.
   */
  readonly createdMs?: number;
}
