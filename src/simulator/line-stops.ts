/**
 * When a healthy line of the realistic plant stands still: shift changes, meal breaks and, about
 * one day in four, an unplanned stop of about an hour (a material shortage, a long changeover).
 * While it stands no unit enters and no test starts; a test under way finishes. A pure function
 * of the seed, the line and the instant.
 */
import { hashInts, Purpose, uniform } from './random.ts';

const MIN = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
const HALF_HOUR = 1_800_000;

/** Local hours at which shifts start (three 8-hour shifts). */
const SHIFT_STARTS_H = [6, 14, 22] as const;
/** The meal break starts this many hours into a shift. */
const BREAK_AFTER_H = 4;
/** Days of unplanned stops a schedule keeps before it forgets them: about ten years. */
const MAX_CACHED_DAYS = 4096;
/** Chance that a line has one unplanned stop on a given (UTC) day. */
const LINE_STOP_DAILY_CHANCE = 0.25;

/** Which kinds of stops a realistic line makes (all on by default). */
export interface StopKinds {
  /** A 10-20 minute handover at every shift start. */
  readonly shiftChanges?: boolean;
  /** A 20-30 minute meal break in the middle of every shift. */
  readonly breaks?: boolean;
  /** About one day in four, a 40-80 minute unplanned stop. */
  readonly lineStops?: boolean;
}

/** A span of time [fromMs, toMs) during which a line stands still, and why. */
export interface LineStop {
  readonly fromMs: number;
  readonly toMs: number;
  readonly kind: 'shift_change' | 'break' | 'line_stop';
}

/** A line's stop schedule. */
export class StopSchedule {
  readonly #seed: number;
  readonly #lineHash: number;
  readonly #kinds: Required<StopKinds>;
  readonly #handoverMs: number;
  readonly #breakMs: number;
  readonly #planned: ReadonlyArray<{ from: number; to: number; kind: LineStop['kind'] }>;
  readonly #offsets: ZoneOffsets;
  readonly #unplanned = new Map<number, LineStop | null>();

  constructor(at: { seed: number; lineHash: number; tz: string; kinds?: StopKinds }) {
    this.#seed = at.seed;
    this.#lineHash = at.lineHash;
    this.#kinds = { shiftChanges: true, breaks: true, lineStops: true, ...at.kinds };
    const u = (k: number) => uniform(at.seed, Purpose.stop, at.lineHash, k);
    this.#handoverMs = Math.round((10 + 10 * u(1)) * MIN);
    this.#breakMs = Math.round((20 + 10 * u(2)) * MIN);
    this.#planned = this.#plannedOfDay();
    this.#offsets = new ZoneOffsets(at.tz);
  }

  /** The instant the line runs again: `t` itself when it is running at `t`. */
  resume(t: number): number {
    let at = t;
    for (let guard = 0; guard < 8; guard++) {
      const end = this.#endOfStopAt(at);
      if (end <= at) return at;
      at = end;
    }
    return at;
  }

  /** Whether the line stands still at `t`. */
  stopped(t: number): boolean {
    return this.#endOfStopAt(t) > t;
  }

  /** Every stop overlapping [fromMs, toMs), in time order (overlapping ones are listed apart). */
  stopsBetween(fromMs: number, toMs: number): LineStop[] {
    const out: LineStop[] = [];
    const first = Math.floor((fromMs - DAY) / DAY);
    const last = Math.floor((toMs + DAY) / DAY);
    for (let day = first; day <= last; day++) out.push(...this.#stopsOfDay(day));
    return out.filter((s) => s.toMs > fromMs && s.fromMs < toMs).sort((a, b) => a.fromMs - b.fromMs);
  }

  /** Milliseconds of [fromMs, toMs) during which the line stands still. */
  stoppedWithin(fromMs: number, toMs: number): number {
    let total = 0;
    let cursor = fromMs;
    for (const s of this.stopsBetween(fromMs, toMs)) {
      const a = Math.max(cursor, s.fromMs);
      const b = Math.min(toMs, s.toMs);
      if (b > a) {
        total += b - a;
        cursor = b;
      }
    }
    return total;
  }

  // Runs for every attempt of every unit, so it allocates nothing. An unplanned stop of the day
  // before may run past midnight.
  #endOfStopAt(t: number): number {
    let end = t;
    const offset = this.#offsets.at(t);
    const ofDay = (((t + offset) % DAY) + DAY) % DAY;
    for (const s of this.#planned) {
      if (ofDay >= s.from && ofDay < s.to) end = Math.max(end, t + (s.to - ofDay));
    }
    if (this.#kinds.lineStops) {
      const day = Math.floor(t / DAY);
      for (let d = day - 1; d <= day; d++) {
        const s = this.#unplannedOf(d);
        if (s !== null && t >= s.fromMs && t < s.toMs) end = Math.max(end, s.toMs);
      }
    }
    return end;
  }

  /** Planned stops of a local day, as milliseconds since local midnight. */
  #plannedOfDay(): Array<{ from: number; to: number; kind: LineStop['kind'] }> {
    const out: Array<{ from: number; to: number; kind: LineStop['kind'] }> = [];
    for (const h of SHIFT_STARTS_H) {
      if (this.#kinds.shiftChanges)
        out.push({ from: h * HOUR, to: h * HOUR + this.#handoverMs, kind: 'shift_change' });
      // The night shift's break falls on the next local day: 22:00 + 4 h is 02:00.
      const brk = ((h + BREAK_AFTER_H) % 24) * HOUR;
      if (this.#kinds.breaks) out.push({ from: brk, to: brk + this.#breakMs, kind: 'break' });
    }
    return out;
  }

  /** The unplanned stop starting on a UTC day, if any; cached, as every attempt asks for two days. */
  #unplannedOf(day: number): LineStop | null {
    const hit = this.#unplanned.get(day);
    if (hit !== undefined) return hit;
    const h = hashInts(this.#seed, Purpose.stop, this.#lineHash, day);
    const u = (k: number) => uniform(h, k);
    let stop: LineStop | null = null;
    if (u(0) < LINE_STOP_DAILY_CHANCE) {
      const fromMs = day * DAY + Math.floor(u(1) * DAY);
      stop = { fromMs, toMs: fromMs + Math.round((40 + 40 * u(2)) * MIN), kind: 'line_stop' };
    }
    if (this.#unplanned.size >= MAX_CACHED_DAYS) this.#unplanned.clear();
    this.#unplanned.set(day, stop);
    return stop;
  }

  #stopsOfDay(day: number): LineStop[] {
    const out: LineStop[] = [];
    const guess = this.#offsets.at(day * DAY + DAY / 2);
    // A UTC day overlaps at most three local days (a zone is less than a day from UTC).
    for (let local = (day - 1) * DAY; local <= (day + 1) * DAY; local += DAY) {
      for (const p of this.#planned) {
        const s = { from: local + p.from, to: local + p.to, kind: p.kind };
        const fromMs = s.from - this.#offsets.at(s.from - guess);
        if (fromMs >= day * DAY && fromMs < (day + 1) * DAY)
          out.push({ fromMs, toMs: fromMs + (s.to - s.from), kind: s.kind });
      }
    }
    const unplanned = this.#kinds.lineStops ? this.#unplannedOf(day) : null;
    if (unplanned !== null) out.push(unplanned);
    return out;
  }
}

/** A year of half hours. */
const MAX_CACHED_OFFSETS = 17_520;

/**
 * A zone's offset from UTC (ms, positive east), cached per half hour: zones change their offset
 * on the hour or half hour, and a line asks for the same half hours again and again.
 */
export class ZoneOffsets {
  readonly #format: Intl.DateTimeFormat;
  readonly #cache = new Map<number, number>();

  constructor(tz: string) {
    this.#format = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
    });
  }

  /** The offset at `t`. */
  at(t: number): number {
    const slot = Math.floor(t / HALF_HOUR);
    const hit = this.#cache.get(slot);
    if (hit !== undefined) return hit;
    const at = slot * HALF_HOUR;
    const p: Record<string, number> = {};
    for (const part of this.#format.formatToParts(at)) p[part.type] = Number(part.value);
    const offset = Date.UTC(p.year!, p.month! - 1, p.day!, p.hour! % 24, p.minute!) - at;
    if (this.#cache.size >= MAX_CACHED_OFFSETS) this.#cache.clear();
    this.#cache.set(slot, offset);
    return offset;
  }
}
