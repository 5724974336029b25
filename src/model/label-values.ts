/**
 * Label values that come from the upstream, made safe to export. /metrics is an output like the
 * logs, but the logger's redactor never sees it: a gateway that reflects the Authorization header
 * into a station description, or a site named after a token, would publish the token to every
 * scraper. And a 1 MB station name, repeated on every series of the station, makes a 43 MB body.
 *
 * So every upstream value that becomes a label passes here once per topology: a lone UTF-16
 * surrogate (which UTF-8 cannot carry) becomes U+FFFD, a value carrying a known secret (or
 * `Bearer <credential>`) is masked the way the logs mask it, and a value longer than
 * {@link MAX_LABEL_VALUE_LENGTH} is cut and marked. An id cannot be changed without merging
 * two elements into one series (and it is sent back to the upstream in requests), so an element
 * whose id would need either is left out instead. Each case is counted by reason and logged once,
 * without the value.
 */
import type { Logger } from 'pino';

/**
 * Longest label value exported from the upstream, in UTF-16 code units. Real names and ids are
 * short (the simulator's and the API examples' are under 40; a UUID is 36), and a dashboard legend
 * shows far less; 256 keeps room for long descriptive names while bounding what one hostile value
 * costs: about 1 KiB per series for its four name labels, where a 1 MB name cost 1 MB per series.
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

/** What {@link LabelValues} needs. */
export interface LabelValuesDeps {
  /** The process's redactor (the logs' masking): masks known secrets and `Bearer <credential>`. */
  readonly redact: (text: string) => string;
  readonly logger: Logger;
  /** The collector whose labels these are, for the log line. */
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

/**
 * `text` with every lone surrogate replaced by U+FFFD (`String.prototype.toWellFormed`, ES2024;
 * the project's TypeScript lib is ES2023): what UTF-8 encoding writes for it anyway.
 */
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
   * A name or description as exported: made well-formed, secrets masked, then cut to the cap.
   * `field` names it in the log. Lone surrogates are replaced here, before names are compared
   * for clashes: the exposition's UTF-8 writes each of them as U+FFFD, so `P\ud800`, `P\udbff`
   * and `P\ufffd`, three names to the clash check, were three sites with one label.
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
    if (reason === 'secret') {
      logger.warn(
        { collector, field },
        'an upstream label value carried a secret (a known token or a Bearer credential): names and descriptions are exported masked, an element with such an id is left out; counted in station_exporter_label_values_redacted_total',
      );
    } else if (reason === 'ill_formed') {
      logger.warn(
        { collector, field },
        'an upstream label value held a lone UTF-16 surrogate, which UTF-8 cannot carry: it is exported as U+FFFD (a clash with a sibling then gets an id suffix); counted in station_exporter_label_values_redacted_total',
      );
    } else {
      logger.warn(
        { collector, field, maxLength: MAX_LABEL_VALUE_LENGTH },
        'an upstream label value was longer than the cap: names and descriptions are cut and end in "…", an element with such an id is left out; counted in station_exporter_label_values_redacted_total',
      );
    }
  }
}
