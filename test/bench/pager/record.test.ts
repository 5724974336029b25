import { describe, expect, it } from 'vitest';
import { stampExposition } from '../../../bench/pager/record.ts';
import { selectorsByName } from '../../../bench/pager/rules.ts';

describe('recording what the alerts read', () => {
  const keep = selectorsByName([
    'count by (job) (increase(v_total{rule="cusum"}[10m]) > 0)',
    'g{window="1h"} / on (site) h',
    'u{group=""}',
  ]);

  it('collects the equality matchers of each selector', () => {
    expect(keep.get('v_total')).toEqual([{ rule: 'cusum' }]);
    expect(keep.get('g')).toEqual([{ window: '1h' }]);
    expect(keep.get('h')).toEqual([{}]);
  });

  it('keeps only those samples (a label matched empty also when absent), adds the target labels and the timestamp, drops exemplars', () => {
    const text = [
      '# TYPE v counter',
      'v_total{rule="cusum",station="a"} 3',
      'v_total{rule="1",station="a"} 9',
      '# TYPE g gauge',
      'g{window="1h"} 0.5 # {trace_id="x"} 1',
      'g{window="24h"} 0.7',
      '# TYPE h gauge',
      'h 1',
      '# TYPE u gauge',
      'u{station="a"} 4',
      'u{station="b",group=""} 5',
      'u{station="c",group="ICT"} 6',
      'u{station="d",subgroup=""} 7',
      '# TYPE other gauge',
      'other 2',
      '# EOF',
    ].join('\n');
    expect(stampExposition(text, { keep, atMs: 60_000 }).split('\n')).toEqual([
      '# TYPE v counter',
      'v_total{job="station-exporter",instance="bench:9732",rule="cusum",station="a"} 3 60.000',
      '# TYPE g gauge',
      'g{job="station-exporter",instance="bench:9732",window="1h"} 0.5 60.000',
      '# TYPE h gauge',
      'h{job="station-exporter",instance="bench:9732"} 1 60.000',
      // group="" selects samples without the label too, as in PromQL.
      '# TYPE u gauge',
      'u{job="station-exporter",instance="bench:9732",station="a"} 4 60.000',
      'u{job="station-exporter",instance="bench:9732",station="b",group=""} 5 60.000',
      'u{job="station-exporter",instance="bench:9732",station="d",subgroup=""} 7 60.000',
      '',
    ]);
  });

  it('stamps the same lines when it keeps each series between scrapes (label values with spaces too)', () => {
    const scrape = (v: number) =>
      [
        '# TYPE g gauge',
        `g{window="1h",line="SMT 1 } x"} ${v}`,
        `g{window="24h",line="SMT 1"} ${v}`,
        '# TYPE h gauge',
        `h ${v}`,
        '# EOF',
      ].join('\n');
    const seen = new Map<string, string | null>();
    for (const [v, atMs] of [
      [1, 60_000],
      [2, 120_000],
    ] as const) {
      const fresh = stampExposition(scrape(v), { keep, atMs });
      expect(stampExposition(scrape(v), { keep, atMs, seen })).toBe(fresh);
      expect(fresh).toContain(
        `g{job="station-exporter",instance="bench:9732",window="1h",line="SMT 1 } x"} ${v} `,
      );
    }
    expect(seen.size).toBe(3);
  });
});
