/** Which forms scrapers ask for: a body nobody scrapes is not worth its megabytes at 100k series. */

/** Publishes of a part that keep a form after the last scrape that asked for it. */
const DEMAND_PUBLISHES = 5;

/**
 * Demand counted in each part's own publishes: after an ask, the next {@link DEMAND_PUBLISHES}
 * of every part keep the form. Counting publishes needs no clock and follows each collector's interval.
 */
export class Demand {
  private asks = 0;
  private readonly parts = new Map<string, { asksSeen: number; left: number }>();

  /** A scrape asked for the form. */
  ask(): void {
    this.asks++;
  }

  /** Whether this publish of `part` keeps the form. */
  takePublish(part: string): boolean {
    const seen = this.parts.get(part) ?? { asksSeen: 0, left: 0 };
    if (seen.asksSeen !== this.asks) {
      seen.asksSeen = this.asks;
      seen.left = DEMAND_PUBLISHES;
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

/** Scrape intervals without a protobuf scrape after which protobuf bodies are dropped. */
const PROTOBUF_IDLE_INTERVALS = 3;
/** The scrape interval assumed before two asks have shown one: Prometheus's default. */
const ASSUMED_SCRAPE_INTERVAL_MS = 60_000;
/** Gaps between asks remembered to estimate the scrape interval. */
const GAPS_KEPT = 8;

/**
 * Demand counted in time: active for a few scrape intervals after an ask. The interval is the
 * longest recent gap, so two servers scraping seconds apart do not look like one scraping often.
 */
export class RecentAsks {
  private last: number | undefined;
  private readonly gaps: number[] = [];

  /** A scrape asked for the form now. */
  ask(): void {
    const now = performance.now();
    if (this.last !== undefined) {
      this.gaps.push(now - this.last);
      if (this.gaps.length > GAPS_KEPT) this.gaps.shift();
    }
    this.last = now;
  }

  /** True while a scrape asked within the idle period. */
  active(): boolean {
    return this.last !== undefined && performance.now() - this.last <= this.idleMs();
  }

  /** The idle period after which the form is dropped: {@link PROTOBUF_IDLE_INTERVALS} scrape intervals. */
  idleMs(): number {
    const interval = this.gaps.length === 0 ? ASSUMED_SCRAPE_INTERVAL_MS : Math.max(...this.gaps);
    return PROTOBUF_IDLE_INTERVALS * interval;
  }
}
