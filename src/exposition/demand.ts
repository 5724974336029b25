/**
 * Which forms of the exposition scrapers ask for, so that the cache keeps only those: a body
 * nobody scrapes (protobuf when no Prometheus has native histograms on, the plain bytes when
 * every scraper asks for gzip) is not worth its megabytes at 100k series.
 */

/** Publishes of a part that keep a form after the last scrape that asked for it. */
export const DEFAULT_DEMAND_PUBLISHES = 5;

/**
 * Demand for one form of the exposition, counted in each part's own publishes: after an ask,
 * the next `publishes` publishes of every part (also of a part first published later) keep
 * the form. A scraper that asks at least once every few poll intervals keeps it for good;
 * counting publishes instead of time needs no clock and follows each collector's interval.
 */
export class Demand {
  private asks = 0;
  private readonly parts = new Map<string, { asksSeen: number; left: number }>();

  constructor(private readonly publishes: number = DEFAULT_DEMAND_PUBLISHES) {}

  /** A scrape asked for the form. */
  ask(): void {
    this.asks++;
  }

  /** True once any scrape has asked for the form. */
  get asked(): boolean {
    return this.asks > 0;
  }

  /** Whether this publish of `part` keeps the form; counts the publish. */
  takePublish(part: string): boolean {
    const seen = this.parts.get(part) ?? { asksSeen: 0, left: 0 };
    if (seen.asksSeen !== this.asks) {
      seen.asksSeen = this.asks;
      seen.left = this.publishes;
    }
    const keep = seen.left > 0;
    if (keep) seen.left--;
    this.parts.set(part, seen);
    return keep;
  }

  /** Forgets a removed part. */
  forget(part: string): void {
    this.parts.delete(part);
  }
}
