/** The scheduler's view of each collector's data age, for the max_staleness bound. */

/** When each collector's poll started and its data was last fresh, and which parts are dropped. */
export class Staleness {
  private readonly running = new Map<string, number>();
  private readonly freshAt = new Map<string, number>();
  private readonly dropped = new Set<string>();

  start(name: string, now: number): void {
    this.running.set(name, now);
  }
  finish(name: string, freshAt: number | undefined): void {
    this.running.delete(name);
    if (freshAt === undefined) return;
    this.freshAt.set(name, freshAt);
    this.dropped.delete(name);
  }
  runningSince(name: string): number | undefined {
    return this.running.get(name);
  }
  /** Data was published once, is older than `maxMs`, and is still in the cache. */
  isStale(name: string, now: number, maxMs: number): boolean {
    const at = this.freshAt.get(name);
    return at !== undefined && !this.dropped.has(name) && now - at > maxMs;
  }
  /** Data was published once and is older than `maxMs`. */
  pastBound(name: string, now: number, maxMs: number | undefined): boolean {
    const at = this.freshAt.get(name);
    return maxMs !== undefined && at !== undefined && now - at > maxMs;
  }
  markDropped(name: string): void {
    this.dropped.add(name);
  }
}
