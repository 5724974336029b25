import { describe, expect, it } from 'vitest';
import { exemplarOf, type Family, LabelSet, type Sample } from '../../src/exposition/model.ts';
import { NativeHistogram } from '../../src/exposition/native-histogram.ts';
import { renderProtobufInto, renderProtobufToBuffer } from '../../src/exposition/protobuf.ts';
import { bucketsOf, type DecodedLabel, decodeDelimited } from '../helpers/protobuf.ts';
import { largeFamilies, representative } from './families.ts';

const pairs = (labels: Readonly<Record<string, string>>): DecodedLabel[] =>
  Object.entries(labels).map(([name, value]) => ({ name, value }));

describe('renderProtobufToBuffer', () => {
  it('writes every family with samples as a MetricFamily an independent decoder reads back', () => {
    const decoded = decodeDelimited(renderProtobufToBuffer(representative));
    const station = pairs({ site: 'Nürnberg "Süd"', station: 'st\\1\nb' });
    expect(decoded).toEqual([
      {
        name: 'station_units_total',
        help: 'Units tested.\nFrom /units "output".',
        type: 'COUNTER',
        metric: [{ label: station, counter: { value: 42 } }],
      },
      {
        name: 'station_first_pass_yield_ratio',
        help: 'First pass yield C:\\x.',
        type: 'GAUGE',
        metric: [
          { label: station, gauge: { value: 0.125 } },
          { label: pairs({ station: 'nan' }), gauge: { value: Number.NaN } },
          { label: pairs({ station: 'pinf' }), gauge: { value: Number.POSITIVE_INFINITY } },
          { label: pairs({ station: 'ninf' }), gauge: { value: Number.NEGATIVE_INFINITY } },
        ],
      },
      {
        name: 'station_test_duration_seconds',
        help: 'Test durations.',
        type: 'HISTOGRAM',
        metric: [
          {
            label: station,
            histogram: {
              sample_count: 2,
              sample_sum: 3.5,
              bucket: [
                { cumulative_count: 1, upper_bound: 1 },
                { cumulative_count: 2, upper_bound: Number.POSITIVE_INFINITY },
              ],
            },
          },
        ],
      },
      {
        name: 'station_info',
        help: 'Station metadata.',
        type: 'GAUGE',
        metric: [{ label: pairs({ station: 'a', description: 'Ünïcødé ✓' }), gauge: { value: 1 } }],
      },
      // station_empty has no samples: no MetricFamily (Prometheus would skip it anyway).
      { name: 'station_up', help: 'Plain gauge.', type: 'GAUGE', metric: [{ gauge: { value: 1 } }] },
    ]);
  });

  it('writes a counter exemplar with its labels, value and timestamp', () => {
    const exemplar = exemplarOf(
      { unit_serial: 'SN-<b>"7"</b>' },
      { value: 1, timestampMs: 1_764_000_000_123 },
    );
    const family: Family = {
      desc: { name: 'station_units_total', kind: 'counter', help: 'Units.' },
      samples: [{ labels: LabelSet.of({ station: 's1' }), value: 3, ...(exemplar ? { exemplar } : {}) }],
    };
    const [decoded] = decodeDelimited(renderProtobufToBuffer([family]));
    expect(decoded!.metric![0]!.counter).toEqual({
      value: 3,
      exemplar: {
        label: pairs({ unit_serial: 'SN-<b>"7"</b>' }),
        value: 1,
        timestamp: { seconds: 1_764_000_000, nanos: 123_000_000 },
      },
    });
  });

  it('writes a native histogram: schema, zero bucket, spans and deltas that expand to its counts', () => {
    const h = new NativeHistogram({ schema: 3, maxBuckets: 200 });
    // Positive values with gaps of 1 and of 5 empty buckets, negatives, and zeros.
    const values = [3.3, 3.3, 3.5, 4.2, 9, -1, -1, -1.1, 0, 0, 1e-300];
    for (const v of values) h.observe(v);
    const snapshot = h.snapshot();
    const exemplar = exemplarOf({ unit_serial: 'U1' }, { value: 9, timestampMs: 1_764_000_000_000 })!;
    const family: Family = {
      desc: { name: 'station_measurement_value', kind: 'histogram', help: 'Values.' },
      samples: [
        { labels: LabelSet.of({ metric: 'vcc' }), value: snapshot.count, histogram: snapshot, exemplar },
      ],
    };
    const [decoded] = decodeDelimited(renderProtobufToBuffer([family]));
    const hist = decoded!.metric![0]!.histogram!;
    expect(decoded!.type).toBe('HISTOGRAM');
    expect(hist.sample_count).toBe(values.length);
    expect(hist.sample_sum).toBeCloseTo(
      values.reduce((a, b) => a + b, 0),
      12,
    );
    expect(hist.schema).toBe(3);
    expect(hist.zero_threshold).toBe(snapshot.zeroThreshold);
    expect(hist.zero_count).toBe(3);
    // Expected buckets from the definition: bucket k of schema 3 holds (2^((k-1)/8), 2^(k/8)].
    const key = (v: number) => Math.ceil(Math.log2(v) * 8);
    const expected = (vs: number[]) => {
      const m = new Map<number, number>();
      for (const v of vs) m.set(key(v), (m.get(key(v)) ?? 0) + 1);
      return m;
    };
    expect(bucketsOf(hist.positive_span, hist.positive_delta)).toEqual(expected([3.3, 3.3, 3.5, 4.2, 9]));
    expect(bucketsOf(hist.negative_span, hist.negative_delta)).toEqual(expected([1, 1, 1.1]));
    // Gaps of more than two empty buckets start a new span.
    expect(hist.positive_span!.length).toBe(2);
    // The exemplar: on a +Inf bucket (where Prometheus 2.42 reads it) and in `exemplars`.
    expect(hist.bucket).toEqual([
      {
        cumulative_count: values.length,
        upper_bound: Number.POSITIVE_INFINITY,
        exemplar: { label: pairs({ unit_serial: 'U1' }), value: 9, timestamp: { seconds: 1_764_000_000 } },
      },
    ]);
    expect(hist.exemplars).toHaveLength(1);
  });

  it('keeps the worst bucket layout within its room: huge counts, a span every fourth bucket', () => {
    const positive = Array.from({ length: 400 }, (_, i) => (i % 4 === 0 ? 2 ** 50 - i : 0));
    const snapshot = {
      schema: 8,
      zeroThreshold: 1e-128,
      zeroCount: 0,
      count: 100 * 2 ** 50,
      sum: 1,
      positiveOffset: -1000,
      positive,
      negativeOffset: 0,
      negative: [],
    };
    const family: Family = {
      desc: { name: 'v', kind: 'histogram', help: 'V.' },
      samples: Array.from({ length: 3 }, (_, i) => ({
        labels: LabelSet.of({ i: String(i) }),
        value: snapshot.count,
        histogram: snapshot,
      })),
    };
    const decoded = decodeDelimited(renderProtobufToBuffer([family]));
    const expected = new Map<number, number>();
    positive.forEach((c, i) => {
      if (c > 0) expected.set(-1000 + i, c);
    });
    for (const m of decoded[0]!.metric!) {
      expect(m.histogram!.positive_span).toHaveLength(100);
      expect(bucketsOf(m.histogram!.positive_span, m.histogram!.positive_delta)).toEqual(expected);
    }
  });

  it('marks a histogram without observations as native with an empty span', () => {
    const snapshot = new NativeHistogram({ schema: 3, maxBuckets: 10 }).snapshot();
    const family: Family = {
      desc: { name: 'v', kind: 'histogram', help: 'V.' },
      samples: [{ labels: LabelSet.EMPTY, value: 0, histogram: snapshot }],
    };
    const [decoded] = decodeDelimited(renderProtobufToBuffer([family]));
    expect(decoded!.metric![0]!.histogram).toEqual({
      schema: 3,
      zero_threshold: snapshot.zeroThreshold,
      positive_span: [{}],
    });
  });

  it('encodes label sets built by extension and concatenation like the same pairs given at once', () => {
    const base = LabelSet.of({ site: 'A', line: 'L "1"' });
    const extended = base.with('station', 'S\\1').concat(LabelSet.of({ window: '15m', slot: 'ä' }));
    const flat = LabelSet.of({ site: 'A', line: 'L "1"', station: 'S\\1', window: '15m', slot: 'ä' });
    const fam = (labels: LabelSet): Family => ({
      desc: { name: 'g', kind: 'gauge', help: 'G.' },
      samples: [
        { labels, value: 1 },
        { labels, value: 2 },
      ],
    });
    expect(renderProtobufToBuffer([fam(extended)])).toEqual(renderProtobufToBuffer([fam(flat)]));
    expect(decodeDelimited(renderProtobufToBuffer([fam(extended)]))[0]!.metric![1]!.label).toEqual(
      pairs({ site: 'A', line: 'L "1"', station: 'S\\1', window: '15m', slot: 'ä' }),
    );
  });

  it('keeps large families whole: long labels, families over many blocks, chunked renders equal to one', async () => {
    const families = largeFamilies(5000, 3);
    const long = 'x'.repeat(300);
    const samples: Sample[] = Array.from({ length: 2000 }, (_, i) => ({
      labels: LabelSet.of({ station: `s${i}`, note: `${long}${i}` }),
      value: i,
    }));
    families.push({ desc: { name: 'station_long_labels', kind: 'gauge', help: 'Long.' }, samples });
    const one = renderProtobufToBuffer(families);
    const chunked = await streamed(families, { yieldEvery: 777 });
    // equals, not toEqual: toEqual walks a Buffer byte by byte as an object, seconds for 2 MB.
    expect(Buffer.concat(chunked.copies).equals(one)).toBe(true);
    expect(chunked.samples).toBe(5000 * 3 + 2000);
    const decoded = decodeDelimited(one);
    expect(decoded.map((f) => f.metric!.length)).toEqual([5000, 5000, 5000, 2000]);
    expect(decoded[1]!.metric![4321]!.counter!.value).toBe(4321 * 1.5 + 1);
    expect(decoded[3]!.metric![1999]!.label).toEqual(pairs({ station: 's1999', note: `${long}1999` }));
    expect(decoded[3]!.metric![1999]!.gauge!.value).toBe(1999);
  });

  it('hands over its bytes step by step and writes its blocks again once they are consumed', async () => {
    // A family's bytes are handed over once its length is written: many families, many steps.
    const families = [...representative, ...largeFamilies(300, 40)];
    const r = await streamed(families, { yieldEvery: 500 });
    expect(Buffer.concat(r.copies).equals(renderProtobufToBuffer(families))).toBe(true);
    expect(r.steps).toBeGreaterThan(10);
    // Far fewer blocks than steps: each is written again once its slices are consumed.
    expect(r.blocks.size).toBeLessThan(r.steps / 2);
  });

  it('keeps a family that spans blocks whole while its length is not yet written', async () => {
    // One family over several blocks of the largest size (1 MiB; about 4.8 MB here): its first
    // bytes wait in earlier blocks, which must not be written again before the family ends.
    const long = 'y'.repeat(200);
    const samples: Sample[] = Array.from({ length: 20_000 }, (_, i) => ({
      labels: LabelSet.of({ station: `s${i}`, note: `${long}${i}` }),
      value: i,
    }));
    const families: Family[] = [
      ...largeFamilies(300, 2),
      { desc: { name: 'station_wide', kind: 'gauge', help: 'Wide.' }, samples },
      ...representative,
    ];
    const r = await streamed(families, { yieldEvery: 300 });
    // equals, not toEqual: a diff of two 5 MB buffers takes minutes to print.
    expect(Buffer.concat(r.copies).equals(renderProtobufToBuffer(families))).toBe(true);
    expect(decodeDelimited(Buffer.concat(r.copies))[2]!.metric![19_999]!.gauge!.value).toBe(19_999);
  });
});

/** A streamed render: copies of the bytes each step handed over, the blocks they were in, the steps. */
async function streamed(families: readonly Family[], opts: { readonly yieldEvery: number }) {
  const copies: Buffer[] = [];
  const blocks = new Set<ArrayBufferLike>();
  let steps = 0;
  const r = await renderProtobufInto(families, {
    ...opts,
    consume: async (chunks) => {
      steps++;
      for (const c of chunks) {
        blocks.add(c.buffer);
        copies.push(Buffer.from(c));
      }
    },
  });
  return { copies, blocks, steps, samples: r.samples };
}
