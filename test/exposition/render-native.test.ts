/**
 * Native histograms and exemplars in the text formats: a native histogram family, which they
 * cannot carry, is left out whole (every other family stays), and exemplars appear in
 * OpenMetrics only.
 */
import { describe, expect, it } from 'vitest';
import { exemplarOf, type Family, LabelSet } from '../../src/exposition/model.ts';
import { NativeHistogram } from '../../src/exposition/native-histogram.ts';
import { sameInBothFormats, seriesOf } from '../../src/exposition/render.ts';
import { renderFamilies } from '../helpers/render.ts';

function families(): Family[] {
  const h = new NativeHistogram({ schema: 3, maxBuckets: 40 });
  for (const v of [3.25, 3.5, 3.25]) h.observe(v);
  const snapshot = h.snapshot();
  const serial = exemplarOf({ unit_serial: 'SN "1"' }, { value: 1, timestampMs: 1_764_000_000_500 })!;
  const labels = LabelSet.of({ station: 's1', metric: 'vcc' });
  return [
    {
      desc: { name: 'station_measurement_value', kind: 'histogram', native: true, help: 'Values.' },
      samples: [{ labels, value: snapshot.count, histogram: snapshot, exemplar: serial }],
    },
    {
      desc: { name: 'station_units_total', kind: 'counter', help: 'Units.' },
      samples: [
        { labels: LabelSet.of({ station: 's1' }), value: 7, exemplar: serial },
        { labels: LabelSet.of({ station: 's2' }), value: 0 },
      ],
    },
  ];
}

describe('native histograms and exemplars in the text formats', () => {
  it('text 0.0.4: no native histogram family, the counter without its exemplar', () => {
    expect(renderFamilies(families(), 'text')).toBe(
      [
        '# HELP station_units_total Units.',
        '# TYPE station_units_total counter',
        'station_units_total{station="s1"} 7',
        'station_units_total{station="s2"} 0',
        '',
      ].join('\n'),
    );
  });

  it('OpenMetrics: no native histogram family, the counter with its exemplar', () => {
    const exemplar = ' # {unit_serial="SN \\"1\\""} 1 1764000000.5';
    expect(renderFamilies(families(), 'openmetrics')).toBe(
      [
        '# HELP station_units Units.',
        '# TYPE station_units counter',
        `station_units_total{station="s1"} 7${exemplar}`,
        'station_units_total{station="s2"} 0',
        '',
      ].join('\n'),
    );
  });

  it('counts a native histogram as the one series Prometheus stores from protobuf', () => {
    expect(seriesOf(families())).toBe(1 + 2);
    expect(sameInBothFormats(families()[1]!)).toBe(false);
  });

  it('never writes an exemplar on a gauge, which Prometheus would refuse the scrape for', () => {
    const serial = exemplarOf({ unit_serial: 'SN1' }, { value: 1 })!;
    const gauge: Family = {
      desc: { name: 'g', kind: 'gauge', help: 'G.' },
      samples: [{ labels: LabelSet.EMPTY, value: 1, exemplar: serial }],
    };
    expect(renderFamilies([gauge], 'openmetrics')).toBe('# HELP g G.\n# TYPE g gauge\ng 1\n');
  });

  it('leaves out an exemplar whose labels exceed 128 characters rather than cut the serial', () => {
    expect(exemplarOf({ unit_serial: 'x'.repeat(117) }, { value: 1 })).toBeDefined();
    expect(exemplarOf({ unit_serial: 'x'.repeat(118) }, { value: 1 })).toBeUndefined();
    // Characters, not bytes: 117 two-byte characters still fit.
    expect(exemplarOf({ unit_serial: 'ü'.repeat(117) }, { value: 1 })).toBeDefined();
  });
});
