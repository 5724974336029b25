/**
 * Upstream label values made safe to export: /metrics is an output the logger's redactor never
 * sees (a gateway reflecting the Authorization header into a description would publish the token),
 * and a 1 MB station name on every series of the station makes a 43 MB body. So each value is made
 * well-formed, masked as the logs are and capped; an id cannot change without merging series, so
 * an element whose id would need it is left out. Each case is counted and logged once, no value.
 */
import type { Logger } from 'pino';

/**
 * Longest label value from the upstream, in UTF-16 code units: real names are under 40, and 256
 * bounds a hostile value to about 1 KiB per series for its four name labels.
 */
export const MAX_LABEL_VALUE_LENGTH = 256;

/** Ends a value that was cut (one code unit, counted in {@link MAX_LABEL_VALUE_LENGTH}). */
export const TRUNCATION_MARKER = '…';

/** Why a label value was changed or its element left out. */
export type LabelValueReason = 'secret' | 'too_long' | 'ill_formed';

/** One poll's changed or refused label values, by reason. */
export interface LabelValueCount {
  readonly reason: LabelValueReason;
  readonly count: number;
}

/** What {@link LabelValues} needs: the process's redactor, and the collector for the log line. */
export interface LabelValuesDeps {
  readonly redact: (text: string) => string;
  readonly logger: Logger;
  readonly collector: string;
}

/** `text` cut to `max` code units including the marker, never inside a surrogate pair. */
export function truncateLabelValue(text: string, max: number = MAX_LABEL_VALUE_LENGTH): string {
  if (text.length <= max) return text;
  let end = max - TRUNCATION_MARKER.length;
  const last = text.charCodeAt(end - 1);
  // A high surrogate whose low half would be cut off is dropped with it.
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return text.slice(0, end) + TRUNCATION_MARKER;
}

/** `text` with lone surrogates as U+FFFD, as UTF-8 writes them (ES2024; our lib is ES2023). */
function wellFormed(text: string): string {
  return (text as string & { toWellFormed(): string }).toWellFormed();
}

/** Masks and caps upstream label values, and counts what it changed. One per collector job. */
export class LabelValues {
  readonly #deps: LabelValuesDeps;
  #counts = new Map<LabelValueReason, number>();
  readonly #logged = new Set<LabelValueReason>();

  constructor(deps: LabelValuesDeps) {
    this.#deps = deps;
  }

  /**
   * A name or description as exported: well-formed, masked, then cut; `field` names it in the log.
   * Surrogates are replaced before the clash check, as `P\ud800` and `P\udbff` export alike.
   */
  value(text: string, field: string): string {
    const formed = wellFormed(text);
    if (formed !== text) this.#note('ill_formed', field);
    let out = this.#deps.redact(formed);
    if (out !== formed) this.#note('secret', field);
    if (out.length > MAX_LABEL_VALUE_LENGTH) {
      out = truncateLabelValue(out);
      this.#note('too_long', field);
    }
    return out;
  }

  /**
   * `text` with secrets masked but never cut: for a value that is also an identity, such as a unit
   * serial that an exemplar shows (exemplars longer than OpenMetrics allows are left out anyway).
   */
  masked(text: string, field: string): string {
    const out = this.#deps.redact(text);
    if (out !== text) this.#note('secret', field);
    return out;
  }

  /** True when an id can be exported as it is; otherwise its element is to be left out (counted). */
  acceptsId(id: string, field: string): boolean {
    if (id.length > MAX_LABEL_VALUE_LENGTH) {
      this.#note('too_long', field);
      return false;
    }
    if (this.#deps.redact(id) !== id) {
      this.#note('secret', field);
      return false;
    }
    return true;
  }

  /** The counts since the last call, and starts counting again (one poll's worth each time). */
  take(): LabelValueCount[] {
    const out = [...this.#counts].map(([reason, count]) => ({ reason, count }));
    this.#counts = new Map();
    return out;
  }

  #note(reason: LabelValueReason, field: string): void {
    this.#counts.set(reason, (this.#counts.get(reason) ?? 0) + 1);
    if (this.#logged.has(reason)) return;
    this.#logged.add(reason);
    const { logger, collector } = this.#deps;
    // Logged once per reason: a hostile upstream repeats itself on every refresh. Never the value.
    const extra = reason === 'too_long' ? { maxLength: MAX_LABEL_VALUE_LENGTH } : {};
    logger.warn({ collector, field, ...extra }, `${NOTES[reason]}; counted in ${COUNTER}`);
  }
}

const COUNTER = 'station_exporter_label_values_redacted_total';
const NOTES: Readonly<Record<LabelValueReason, string>> = {
  secret:
    'an upstream label value carried a secret (a known token or a Bearer credential): names and descriptions are exported masked, an element with such an id is left out',
  ill_formed:
    'an upstream label value held a lone UTF-16 surrogate, which UTF-8 cannot carry: it is exported as U+FFFD (a clash with a sibling then gets an id suffix)',
  too_long:
    'an upstream label value was longer than the cap: names and descriptions are cut and end in "…", an element with such an id is left out',
};
