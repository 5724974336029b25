/**
 * A part's OpenMetrics bytes read back with its shapes render to the same protobuf bytes as its
 * families: what lets the cache render protobuf on a late ask without keeping the families.
 */
import { describe, expect, it } from 'vitest';
import { exemplarOf, type Family, LabelSet } from '../../src/exposition/model.ts';
import { NativeHistogram } from '../../src/exposition/native-histogram.ts';
import { readOpenMetrics, shapesOf } from '../../src/exposition/openmetrics-read.ts';
import { renderProtobufToBuffer } from '../../src/exposition/protobuf.ts';
import { LoopYielder } from '../../src/util/loop-yield.ts';
import { renderFamilies } from '../helpers/render.ts';
import { largeFamilies, representative } from './families.ts';

const station = LabelSet.of({ station: 'S}1,"x"', line: 'a=b' });

function withCountersAndNatives(): Family[] {
  const h = new NativeHistogram({ schema: 3, maxBuckets: 160 });
  for (const v of [0.1, 2, 3.7]) h.observe(v);
  const native: Family = {
    desc: { name: 'station_measurement_value', kind: 'histogram', help: 'Values.', native: true },
    samples: [
      {
        labels: station,
        value: 3,
        histogram: h.snapshot(),
        exemplar: exemplarOf({ unit_serial: 'SN9' }, { value: 3.7, timestampMs: 1_795_264_497_123 }),
      },
    ],
    createdMs: 1_795_264_496_250,
  };
  return [
    native,
    {
      desc: { name: 'station_units_total', kind: 'counter', help: 'Units "all".' },
      samples: [
        { labels: station.with('result', 'pass'), value: 0 },
        {
          labels: station.with('result', 'fail'),
          value: 7,
          exemplar: exemplarOf({ unit_serial: 'S N}"1' }, { value: 1, timestampMs: 1_795_264_497_001 }),
        },
        { labels: LabelSet.EMPTY, value: 1e-7 },
      ],
      createdMs: 1_795_264_496_250,
    },
    native,
    ...representative,
    native,
  ];
}

async function roundTrip(families: readonly Family[]): Promise<Buffer> {
  const text = renderFamilies(families, 'openmetrics');
  const back = await readOpenMetrics(text, { shapes: shapesOf(families), yielder: new LoopYielder() });
  return renderProtobufToBuffer(back);
}

describe('readOpenMetrics', () => {
  it('reads back counters, created lines, exemplars, classic buckets and keeps native families', async () => {
    const families = withCountersAndNatives();
    expect(await roundTrip(families)).toEqual(renderProtobufToBuffer(families));
  });

  it('reads back large families over many turns', async () => {
    const families = largeFamilies(400, 3);
    expect(await roundTrip(families)).toEqual(renderProtobufToBuffer(families));
  });
});
