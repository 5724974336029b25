import { describe, expect, it } from 'vitest';
import { type AlertRule, firingSpans } from '../../../bench/pager/alert-state.ts';

const M = 60_000;
const evals = Array.from({ length: 60 }, (_, i) => i * M);
const rule = (over: Partial<AlertRule> = {}): AlertRule => ({
  alert: 'A',
  forMs: 0,
  keepFiringForMs: 0,
  labels: { severity: 'warning' },
  ...over,
});
const at = (...minutes: number[]) => minutes.map((m) => m * M);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => (from + i) * M);

describe('Prometheus alert state', () => {
  it('for: fires at the first evaluation at which the expression has held `for`, resolves at the first without it', () => {
    const spans = firingSpans(
      rule({ forMs: 5 * M }),
      [{ labels: { __name__: 'x', line: 'L1' }, times: range(10, 20) }],
      evals,
    );
    expect(spans).toEqual([
      { labels: { line: 'L1', severity: 'warning', alertname: 'A' }, firedAt: 15 * M, resolvedAt: 21 * M },
    ]);
  });

  it('a pending alert that goes away never fires', () => {
    expect(firingSpans(rule({ forMs: 5 * M }), [{ labels: {}, times: range(10, 14) }], evals)).toEqual([]);
  });

  it('keep_firing_for: stays firing across gaps shorter than it, resolves after it', () => {
    const times = [...at(10), ...at(30), ...at(45)];
    const spans = firingSpans(rule({ keepFiringForMs: 15 * M }), [{ labels: {}, times }], evals);
    // Inactive from 11: still firing until 11 + 15 = 26, resolved at 26; fires again at 30,
    // keeps firing past 31..45 (active at 45 resets), resolved at 46 + 15 = 61 > end: firing.
    expect(
      spans.map((s) => [s.firedAt / M, s.resolvedAt === undefined ? undefined : s.resolvedAt / M]),
    ).toEqual([
      [10, 26],
      [30, undefined],
    ]);
  });

  it('rule labels override the series labels and merge series of the same alert labels', () => {
    const spans = firingSpans(
      rule(),
      [
        { labels: { __name__: 'a', severity: 'x', line: 'L' }, times: at(1) },
        { labels: { __name__: 'b', severity: 'y', line: 'L' }, times: at(2) },
      ],
      evals,
    );
    expect(spans).toEqual([
      { labels: { line: 'L', severity: 'warning', alertname: 'A' }, firedAt: M, resolvedAt: 3 * M },
    ]);
  });
});
