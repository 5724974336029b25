/**
 * station_measurement_value: every numeric value once, as its record first arrives, from the
 * exporter's start on, for the first max_names names, labelled like the other measurement
 * families, with the newest value's unit serial as exemplar.
 */
import { describe, expect, it } from 'vitest';
import { ValueHistograms } from '../../../src/collectors/measurements/histograms.ts';
import { MeasurementStore } from '../../../src/collectors/measurements/store.ts';
import type { Topology } from '../../../src/model/topology.ts';
import type { MeasurementRecord } from '../../../src/upstream/types.ts';
import { LoopYielder } from '../../../src/util/loop-yield.ts';
import { plantOf, topologyOf } from '../../helpers/fake-client.ts';

const START = Date.parse('2026-11-21T12:00:00Z');

function setup(stations = 1) {
  const topology = topologyOf([plantOf([stations])]);
  const station = topology.stations[0]!;
  const histograms = new ValueHistograms({
    countFrom: START,
    schema: 3,
    maxBuckets: 50,
    names: new Set(['vcc']),
  });
  const store = new MeasurementStore();
  store.watch((series, r) => histograms.observe(series, r));
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
  const family = (opts: { bySlot: boolean }, of: Topology = topology) =>
    histograms.family(of, { ...opts, yielder: new LoopYielder() });
  return { topology, station, histograms, store, m, family };
}

describe('ValueHistograms', () => {
  it('counts each numeric value once, from the start on, for the chosen names only', async () => {
    const { station, store, m, family: familyOf } = setup();
    store.add([m(-5, 3.1), m(1, 3.3), m(2, 3.25), m(3, undefined), m(4, 3.3, { name: 'other' })]);
    // Fetched again by the overlap, plus one new value and one repeated within the batch.
    store.add([m(1, 3.3), m(2, 3.25), m(5, 3.35), m(5, 3.35)]);
    const family = await familyOf({ bySlot: true });
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

  it('exports a series at 0 from a value before the start, so that its first counted value is a rate', async () => {
    const { store, m, family } = setup();
    store.add([m(-5, 3.1)]);
    const [sample] = (await family({ bySlot: true })).samples;
    expect(sample?.histogram?.count).toBe(0);
    expect(sample?.exemplar).toBeUndefined();
  });

  it('labels slots like the other families: by_slot false drops the slot of a single-slot name', async () => {
    const { store, m, family } = setup();
    store.add([m(1, 3.3, { slot: '1' })]);
    expect((await family({ bySlot: true })).samples[0]!.labels.text).toMatch(/,metric="vcc",slot="1"$/);
    expect((await family({ bySlot: false })).samples[0]!.labels.text).toMatch(/,metric="vcc"$/);
    store.add([m(2, 3.3, { slot: '2' })]);
    expect((await family({ bySlot: false })).samples.map((s) => s.labels.text.slice(-19))).toEqual(
      ['etric="vcc",slot="1"', 'etric="vcc",slot="2"'].map((t) => t.slice(-19)),
    );
  });

  it('builds a plant larger than one slice in station order, and forgets stations that left', async () => {
    const { topology, store, m, family } = setup(250);
    // Values on every fifth station, newest first so that arrival order is not station order.
    const measured = topology.stations.filter((_, i) => i % 5 === 0).reverse();
    for (const [i, s] of measured.entries()) store.add([m(1 + i, 3.3, { stationId: s.id })]);
    const samples = (await family({ bySlot: true })).samples;
    expect(samples.map((x) => x.labels.text)).toEqual(
      [...measured].reverse().map((s) => `${s.labels.text},metric="vcc"`),
    );
    expect(samples.every((x) => x.histogram?.count === 1)).toBe(true);
    // The station left the topology: its histogram is dropped, and it starts over if it returns.
    const [first] = topology.stations;
    await family({ bySlot: true }, { ...topology, stations: topology.stations.slice(1) });
    const again = await family({ bySlot: true });
    expect(again.samples).toHaveLength(measured.length - 1);
    expect(again.samples.some((x) => x.labels.text.startsWith(`${first!.labels.text},`))).toBe(false);
  });
});
