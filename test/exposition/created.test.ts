/**
 * Created times: a counter or histogram family's `createdMs` becomes `created_timestamp` in
 * protobuf (Counter field 3, Histogram field 15) and a `_created` line after each counter sample
 * in OpenMetrics; the text format, which has no such line, is unchanged.
 */
import { describe, expect, it } from 'vitest';
import { exemplarOf, type Family, LabelSet } from '../../src/exposition/model.ts';
import { NativeHistogram } from '../../src/exposition/native-histogram.ts';
import { renderProtobufToBuffer } from '../../src/exposition/protobuf.ts';
import { decodeDelimited } from '../helpers/protobuf.ts';
import { renderFamilies } from '../helpers/render.ts';
import { openMetricsProblems } from './openmetrics.ts';

const START = Date.parse('2026-11-21T12:34:56.250Z');
const station = LabelSet.of({ station: 'S1' });

function families(): Family[] {
  const h = new NativeHistogram({ schema: 3, maxBuckets: 160 });
  h.observe(1.5);
  return [
    {
      desc: { name: 'station_units_total', kind: 'counter', help: 'Units.' },
      samples: [
        { labels: station.with('result', 'pass'), value: 0 },
        {
          labels: station.with('result', 'fail'),
          value: 2,
          exemplar: exemplarOf({ unit_serial: 'SN1' }, { value: 1, timestampMs: START + 1000 }),
        },
      ],
      createdMs: START,
    },
    {
      desc: { name: 'station_measurement_value', kind: 'histogram', help: 'Values.', native: true },
      samples: [{ labels: station, value: 1, histogram: h.snapshot() }],
      createdMs: START,
    },
    {
      desc: { name: 'station_unit_late_records_total', kind: 'counter', help: 'Late.' },
      samples: [{ labels: station, value: 3 }],
    },
  ];
}

describe('created times', () => {
  it('protobuf carries created_timestamp on counters and native histograms that have one', () => {
    const [units, values, late] = decodeDelimited(renderProtobufToBuffer(families()));
    const created = { seconds: Math.floor(START / 1000), nanos: 250_000_000 };
    expect(units!.metric!.map((m) => m.counter?.start_timestamp)).toEqual([created, created]);
    expect(units!.metric![1]!.counter!.exemplar?.label).toEqual([{ name: 'unit_serial', value: 'SN1' }]);
    expect(values!.metric![0]!.histogram!.start_timestamp).toEqual(created);
    expect(values!.metric![0]!.histogram!.sample_count).toBe(1);
    expect(late!.metric![0]!.counter).toEqual({ value: 3 });
  });

  it('OpenMetrics follows each counter sample with its _created line; the text format has none', () => {
    const om = renderFamilies(families(), 'openmetrics');
    expect(om).toContain(
      [
        'station_units_total{station="S1",result="pass"} 0',
        'station_units_created{station="S1",result="pass"} 1795264496.25',
        'station_units_total{station="S1",result="fail"} 2 # {unit_serial="SN1"} 1 1795264497.25',
        'station_units_created{station="S1",result="fail"} 1795264496.25',
        '# HELP station_unit_late_records Late.',
        '# TYPE station_unit_late_records counter',
        'station_unit_late_records_total{station="S1"} 3',
      ].join('\n'),
    );
    expect(openMetricsProblems(`${om.replace(/ # \{.*\n/g, '\n')}# EOF\n`)).toEqual([]);
    expect(renderFamilies(families(), 'text')).not.toContain('_created');
  });
});
