/**
 * Stations the upstream refuses to this token (403 for the station alone): found once by
 * splitting a batch, left out of later polls and re-probed alone at a slow pace. Shared by the
 * record collectors and read by the summary collector (which part of a station set it covers).
 */

/** Hears when the refused set changes: its new size, and the stations added or cleared. */
export type RefusedListener = (size: number, added: readonly string[], cleared: readonly string[]) => void;

/** The refused stations, with the time each may be probed again. */
export class RefusedStations {
  private readonly nextProbeAt = new Map<string, number>();

  constructor(
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
