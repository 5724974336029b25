/**
 * What the CUSUM and EWMA gauges show and count at a signal (issue 30): the crossing, not the
 * restarted state; no date from the replayed history; one event for a signal a late point moves.
 * Sums worked out by hand: k = 0.5 and points 1.6 sigma high add 1.1 each to C+.
 */
import { describe, expect, it } from 'vitest';
import {
  CUSUM_EVENT,
  type DetectorParams,
  Detectors,
  EVENT_SLOTS,
  EWMA_EVENT,
} from '../../src/spc/detector-state.ts';
import type { ControlLimits } from '../../src/spc/limits.ts';

const LIMITS: ControlLimits = {
  kind: 'given',
  center: 10,
  sigma: 2,
  ucl: 16,
  lcl: 4,
  mrBar: 2.256,
  mrUcl: 7.37,
  samples: 0,
};
const CUSUM_ONLY: DetectorParams = {
  cusum: { enabled: true, k: 0.5, h: 4, fir: false },
  ewma: { enabled: false, lambda: 0.1, L: 3 },
};
const EWMA_ONLY: DetectorParams = {
  cusum: { enabled: false, k: 0.5, h: 4, fir: false },
  ewma: { enabled: true, lambda: 0.5, L: 2 },
};

/** A series of points (times in seconds, values as z in sigmas) and the counters of one chart. */
class Series {
  readonly times: number[] = [];
  readonly values: number[] = [];
  readonly out = {
    events: new Float64Array(EVENT_SLOTS),
    lastTimes: new Float64Array(EVENT_SLOTS).fill(Number.NaN),
  };
  readonly state: Detectors;
  /** Points evaluated so far (the next advance's new points start after them). */
  private evaluated = 0;

  constructor(readonly params: DetectorParams) {
    this.state = new Detectors(params);
  }

  /** Inserts points in time order: a late one lands among those already evaluated. */
  add(points: ReadonlyArray<readonly [number, number]>): void {
    for (const [t, z] of points) {
      let i = this.times.length;
      while (i > 0 && (this.times[i - 1] ?? 0) > t * 1000) i--;
      this.times.splice(i, 0, t * 1000);
      this.values.splice(i, 0, LIMITS.center + z * LIMITS.sigma);
    }
  }

  /** Evaluates the points added since the last call; `history`: the first call replays them uncounted. */
  advance(opts: { readonly history?: boolean } = {}): void {
    const to = this.times.length;
    const newFrom = opts.history ? to : Math.max(this.evaluated, this.firstUnevaluated());
    this.state.advance(
      {
        times: this.times,
        values: this.values,
        limits: LIMITS,
        params: this.params,
        range: { replayFrom: 0, newFrom, to },
        keepFrom: Number.NEGATIVE_INFINITY,
      },
      this.out,
    );
    this.evaluated = to;
  }

  view() {
    return this.state.view(this.params, LIMITS);
  }

  /** Index of the first point newer than every point evaluated before (late ones are older). */
  private firstUnevaluated(): number {
    const last = this.state.checkpoints.at(-1)?.time ?? Number.NEGATIVE_INFINITY;
    return this.times.findIndex((t) => t > last) === -1
      ? this.times.length
      : this.times.findIndex((t) => t > last);
  }
}

/** Points 1.6 sigma high at these times (seconds): with k = 0.5 each adds 1.1 to C+. */
function high(...times: number[]): Array<readonly [number, number]> {
  return times.map((t) => [t, 1.6] as const);
}

describe('the CUSUM at a signal', () => {
  it('shows the sum that crossed h until the next point, then the restarted sum', () => {
    const s = new Series(CUSUM_ONLY);
    s.add(high(1, 2, 3, 4));
    s.advance();
    // 1.1, 2.2, 3.3, 4.4 > 4: a signal at the 4th point; the gauge shows 4.4, not 0.
    expect(s.out.events[CUSUM_EVENT]).toBe(1);
    expect(s.view()?.cusum?.upper).toBeCloseTo(4.4, 12);
    expect(s.view()?.cusum?.h).toBe(4);
    s.add(high(5));
    s.advance();
    // The sums restarted at 0 after the 4th point: 1.1 after the 5th.
    expect(s.view()?.cusum?.upper).toBeCloseTo(1.1, 12);
    expect(s.out.events[CUSUM_EVENT]).toBe(1);
  });
});

describe('the EWMA at a signal', () => {
  it('restarts at the centre, and shows the statistic and the limits it crossed, not limits of zero width', () => {
    const s = new Series(EWMA_ONLY);
    // After one point the limit is L lambda = 1 sigma; z = 0.5 x -2.1 = -1.05 is beyond it.
    s.add([[1, -2.1]]);
    s.advance();
    expect(s.out.events[EWMA_EVENT]).toBe(1);
    const at = s.view()?.ewma;
    expect(at?.value).toBeCloseTo(10 - 1.05 * 2, 12);
    expect(at?.upper).toBeCloseTo(10 + 1 * 2, 12);
    expect(at?.lower).toBeCloseTo(10 - 1 * 2, 12);
    // The next point: restarted at the centre (t = 0), so after it t = 1 and the limits are
    // L lambda again, never zero wide.
    s.add([[2, 0]]);
    s.advance();
    const next = s.view()?.ewma;
    expect(next?.value).toBeCloseTo(10, 12);
    expect(next?.upper).toBeCloseTo(12, 12);
    expect(s.out.events[EWMA_EVENT]).toBe(1);
  });
});

describe('signals in the replayed history', () => {
  it('count no event and set no last signal time, but are still dated for a hold', () => {
    const s = new Series(CUSUM_ONLY);
    s.add(high(1, 2, 3, 4));
    s.advance({ history: true });
    expect(s.out.events[CUSUM_EVENT]).toBe(0);
    // Nothing an alert could read again after a restart.
    expect(s.out.lastTimes[CUSUM_EVENT]).toBeNaN();
    // The chart still knows a shift was signalled: its rolling baseline is held.
    expect(s.state.lastSignal).toBe(4000);
    // A new point that signals is news: counted and dated.
    s.add(high(5, 6, 7, 8));
    s.advance();
    expect(s.out.events[CUSUM_EVENT]).toBe(1);
    expect(s.out.lastTimes[CUSUM_EVENT]).toBe(8000);
  });
});

describe('a late point that moves a signal', () => {
  it('counts it once, as the docs say', () => {
    const s = new Series(CUSUM_ONLY);
    s.add(high(10, 20, 30, 40));
    s.advance();
    // 1.1, 2.2, 3.3, 4.4: one signal, at 40.
    expect(s.out.events[CUSUM_EVENT]).toBe(1);
    // A point recorded at 25 arrives late: in time order 1.1, 2.2, 3.3 (25), 4.4 (30): the
    // signal moves from 40 to 30, and 40 now gives none (1.1). Still one event.
    s.add(high(25));
    s.advance();
    expect(s.out.events[CUSUM_EVENT]).toBe(1);
    expect(s.view()?.cusum?.upper).toBeCloseTo(1.1, 12);
  });

  it('counts a signal it adds, and keeps one it removes counted', () => {
    const s = new Series(CUSUM_ONLY);
    s.add(high(10, 20, 30, 40));
    s.advance();
    // A late low point removes the signal at 40 (0, 0, 1.1, 2.2): a counter never goes down.
    s.add([[25, -3]]);
    s.advance();
    expect(s.out.events[CUSUM_EVENT]).toBe(1);
    // A later poll's signal is a new event.
    s.add(high(50, 60));
    s.advance();
    expect(s.out.events[CUSUM_EVENT]).toBe(2);
  });
});
