/**
 * Stations the upstream refuses to this token (403 for a request of that station alone).
 * Found once by splitting a refused batch, they are left out of later polls instead of
 * splitting again every time, and each is re-probed alone at a slow pace, since access can be
 * granted later. Shared by every record collector and readable by the summary collector, so
 * that aggregates over a station set can say which part of it they cover.
 */

/** The read-only view collectors get. */
interface RefusedView {
  has(stationId: string): boolean;
  readonly size: number;
  ids(): string[];
}

/** Hears when the refused set changes: its new size, and the stations added or cleared. */
export type RefusedListener = (size: number, added: readonly string[], cleared: readonly string[]) => void;

/** The refused stations, with the time each may be probed again. */
export class RefusedStations implements RefusedView {
  private readonly nextProbeAt = new Map<string, number>();

  constructor(
    /** Time between two probes of one refused station. */
    private readonly reprobeMs: number,
    private readonly onChange?: RefusedListener,
  ) {}

  has(stationId: string): boolean {
    return this.nextProbeAt.has(stationId);
  }

  get size(): number {
    return this.nextProbeAt.size;
  }

  ids(): string[] {
    return [...this.nextProbeAt.keys()].sort();
  }

  /** Whether a poll at `now` should ask for this station: not refused, or due for a probe. */
  wanted(stationId: string, now: number): boolean {
    const at = this.nextProbeAt.get(stationId);
    return at === undefined || now >= at;
  }

  /** Records a refusal of the station alone; the next probe is one interval away. */
  refuse(stationId: string, now: number): void {
    const known = this.nextProbeAt.has(stationId);
    this.nextProbeAt.set(stationId, now + this.reprobeMs);
    if (!known) this.onChange?.(this.size, [stationId], []);
  }

  /** Records an answer for the station: it is accessible again. */
  accept(stationId: string): void {
    if (this.nextProbeAt.delete(stationId)) this.onChange?.(this.size, [], [stationId]);
  }
}
