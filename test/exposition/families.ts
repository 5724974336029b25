/** Families shared by the exposition tests. */
import { type Family, LabelSet, type Sample } from '../../src/exposition/model.ts';

const station = LabelSet.of({ site: 'Nürnberg "Süd"', station: 'st\\1\nb' });

/** A small set covering every kind, escaping, special values and an empty family. */
export const representative: readonly Family[] = [
  {
    desc: { name: 'station_units_total', kind: 'counter', help: 'Units tested.\nFrom /units "output".' },
    samples: [{ labels: station, value: 42 }],
  },
  {
    desc: { name: 'station_first_pass_yield_ratio', kind: 'gauge', help: 'First pass yield C:\\x.' },
    samples: [
      { labels: station, value: 0.125 },
      { labels: LabelSet.of({ station: 'nan' }), value: Number.NaN },
      { labels: LabelSet.of({ station: 'pinf' }), value: Number.POSITIVE_INFINITY },
      { labels: LabelSet.of({ station: 'ninf' }), value: Number.NEGATIVE_INFINITY },
    ],
  },
  {
    desc: {
      name: 'station_test_duration_seconds',
      kind: 'histogram',
      help: 'Test durations.',
      unit: 'seconds',
    },
    samples: [
      { labels: station.with('le', '1'), value: 1, suffix: '_bucket' },
      { labels: station.with('le', '+Inf'), value: 2, suffix: '_bucket' },
      { labels: station, value: 3.5, suffix: '_sum' },
      { labels: station, value: 2, suffix: '_count' },
    ],
  },
  {
    desc: { name: 'station_info', kind: 'info', help: 'Station metadata.' },
    samples: [{ labels: LabelSet.of({ station: 'a', description: 'Ünïcødé ✓' }), value: 1 }],
  },
  { desc: { name: 'station_empty', kind: 'gauge', help: 'No samples yet.' }, samples: [] },
  {
    desc: { name: 'station_up', kind: 'gauge', help: 'Plain gauge.' },
    samples: [{ labels: LabelSet.EMPTY, value: 1 }],
  },
];

/** `stations × metrics` series with realistic label sets, for size tests and benchmarks. */
export function largeFamilies(stations: number, metrics: number): Family[] {
  const labels: LabelSet[] = [];
  for (let i = 0; i < stations; i++) {
    labels.push(
      LabelSet.of({
        site: `Plant ${i % 7}`,
        line: `line-${i % 40}`,
        station: `station-${i}`,
        station_id: i.toString(16).padStart(24, '0'),
      }),
    );
  }
  const families: Family[] = [];
  for (let m = 0; m < metrics; m++) {
    const samples: Sample[] = labels.map((l, i) => ({ labels: l, value: i * 1.5 + m }));
    families.push({
      desc: { name: `station_metric_${m}_total`, kind: 'counter', help: `Metric ${m}.` },
      samples,
    });
  }
  return families;
}
