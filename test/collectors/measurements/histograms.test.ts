/**
 * station_measurement_value: every numeric value once, as its record first arrives, from the
 * exporter's start on, for the first max_names names, labelled like the other measurement
 * families, with the newest value's unit serial as exemplar.
 */
import { describe, expect, it } from 'vitest';
import { ValueHistograms } from '../../../src/collectors/measurements/histograms.ts';
import { MeasurementStore } from '../../../src/collectors/measurements/store.ts';
import type { MeasurementRecord } from '../../../src/upstream/types.ts';
import { plantOf, topologyOf } from '../../helpers/fake-client.ts';

const START = Date.parse('2026-11-21T12:00:00Z');

function setup() {
  const topology = topologyOf([plantOf([1])]);
  const station = topology.stations[0]!;
  const histograms = new ValueHistograms({
    countFrom: START,
    schema: 3,
    maxBuckets: 50,
    names: new Set(['vcc']),
  });
  const store = new MeasurementStore({ onNew: (series, r) => histograms.observe(series, r) });
  const m = (
    minutes: number,
    value: number | undefined,
    over: Partial<MeasurementRecord> = {},
  ): MeasurementRecord => ({
    stationId: station.id,
    slot: null,
    serial: `SN${minutes}`,
    time: START + minutes * 60_000,
    name: 'vcc',
    raw: value === undefined ? 'PASS' : String(value),
    value,
    unit: 'V',
    type: 'float',
    upper: 3.4,
    lower: 3.2,
    mode: null,
    ...over,
  });
  return { topology, station, histograms, store, m };
}

describe('ValueHistograms', () => {
  it('counts each numeric value once, from the start on, for the chosen names only', () => {
    const { topology, station, histograms, store, m } = setup();
    store.add([m(-5, 3.1), m(1, 3.3), m(2, 3.25), m(3, undefined), m(4, 3.3, { name: 'other' })]);
    // Fetched again by the overlap, plus one new value and one repeated within the batch.
    store.add([m(1, 3.3), m(2, 3.25), m(5, 3.35), m(5, 3.35)]);
    const family = histograms.family(topology, { bySlot: true });
    expect(family.desc.name).toBe('station_measurement_value');
    expect(family.samples).toHaveLength(1);
    const [sample] = family.samples;
    expect(sample!.labels.text).toBe(`${station.labels.text},metric="vcc"`);
    expect(sample!.histogram!.count).toBe(3);
    expect(sample!.value).toBe(3);
    expect(sample!.histogram!.sum).toBeCloseTo(3.3 + 3.25 + 3.35, 12);
    expect(sample!.exemplar?.labels.text).toBe('unit_serial="SN5"');
    expect(sample!.exemplar?.value).toBe(3.35);
    expect(sample!.exemplar?.timestampMs).toBe(START + 5 * 60_000);
  });

  it('exports a series at 0 from a value before the start, so that its first counted value is a rate', () => {
    const { topology, histograms, store, m } = setup();
    store.add([m(-5, 3.1)]);
    const [sample] = histograms.family(topology, { bySlot: true }).samples;
    expect(sample?.histogram?.count).toBe(0);
    expect(sample?.exemplar).toBeUndefined();
  });

  it('labels slots like the other families: by_slot false drops the slot of a single-slot name', () => {
    const { topology, histograms, store, m } = setup();
    store.add([m(1, 3.3, { slot: '1' })]);
    expect(histograms.family(topology, { bySlot: true }).samples[0]!.labels.text).toMatch(
      /,metric="vcc",slot="1"$/,
    );
    expect(histograms.family(topology, { bySlot: false }).samples[0]!.labels.text).toMatch(/,metric="vcc"$/);
    store.add([m(2, 3.3, { slot: '2' })]);
    expect(
      histograms.family(topology, { bySlot: false }).samples.map((s) => s.labels.text.slice(-19)),
    ).toEqual(['etric="vcc",slot="1"', 'etric="vcc",slot="2"'].map((t) => t.slice(-19)));
  });
});
