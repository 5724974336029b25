/**
 * station_units_total: each unit record counted once as it first arrives (however often the
 * overlap and the re-read sweep fetch it again), only from the exporter's start on, with the
 * newest unit's serial as exemplar and every known kind at 0 before its first increment.
 */
import { describe, expect, it } from 'vitest';
import { UnitStore } from '../../../src/collectors/units/store.ts';
import { UnitTally } from '../../../src/collectors/units/tally.ts';
import type { UnitRecord } from '../../../src/upstream/types.ts';
import { LoopYielder } from '../../../src/util/loop-yield.ts';
import { plantOf, topologyOf } from '../../helpers/fake-client.ts';

const START = Date.parse('2026-11-21T12:00:00Z');

function setup() {
  const yielder = new LoopYielder();
  const topology = topologyOf([plantOf([2])]);
  const [a, b] = topology.stations;
  const tally = new UnitTally({ countFrom: START });
  const store = new UnitStore({ onNew: (r) => tally.count(r) });
  const u = (minutes: number, over: Partial<UnitRecord> = {}): UnitRecord => ({
    stationId: a!.id,
    slot: null,
    serial: `SN${minutes}`,
    time: START + minutes * 60_000,
    direction: 'output',
    result: 'pass',
    unitType: null,
    mode: null,
    ...over,
  });
  const counts = async (known: Array<{ direction: string; result: string }> = []) =>
    Object.fromEntries(
      (await tally.family(topology, () => known, { yielder })).samples.map((s) => [
        `${s.labels.text}`,
        { value: s.value, serial: s.exemplar?.labels.text },
      ]),
    );
  return { topology, a: a!, b: b!, tally, store, u, counts, yielder };
}

describe('UnitTally', () => {
  it('counts each record once, from the start on, by direction and result as first seen', async () => {
    const { a, store, u, counts } = setup();
    // History from before the start counts for nothing.
    store.add([u(-30), u(-1, { result: 'fail' })]);
    store.add([u(1), u(2, { result: 'fail' }), u(3, { direction: 'input', result: null })]);
    // The overlap fetches them again, one with its result filled in; a repeat within one batch too.
    store.add([u(1), u(2, { result: 'pass' }), u(3, { direction: 'input', result: 'pass' }), u(4), u(4)]);
    const station = a.labels.text;
    const c = await counts();
    expect(c[`${station},direction="input",result="unknown"`]?.value).toBe(1);
    expect(c[`${station},direction="output",result="fail"`]?.value).toBe(1);
    expect(c[`${station},direction="output",result="pass"`]?.value).toBe(2);
    // The exemplar: the newest unit counted of that kind.
    expect(c[`${station},direction="output",result="pass"`]?.serial).toBe('unit_serial="SN4"');
    expect(Object.keys(c).filter((k) => k.startsWith(station))).toHaveLength(3);
  });

  it('gives every series the start as its created time, a series first exported at 1 too', async () => {
    const { topology, tally, store, u, yielder } = setup();
    store.add([u(1)]);
    const family = await tally.family(topology, () => [], { yielder });
    expect(family.samples.map((s) => s.value)).toEqual([1]);
    expect(family.createdMs).toBe(START);
  });

  it('exports the kinds known at a station at 0 before their first record, and forgets stations that left', async () => {
    const { b, topology, tally, store, u, counts, yielder } = setup();
    store.add([u(5, { stationId: b.id, result: 'fail' })]);
    const zero = await counts([{ direction: 'output', result: 'pass' }]);
    const atB = Object.entries(zero).filter(([k]) => k.includes(b.id));
    expect(atB.map(([k, v]) => [k.replace(/.*direction/, 'direction'), v.value])).toEqual([
      ['direction="output",result="fail"', 1],
      ['direction="output",result="pass"', 0],
    ]);
    const without = { ...topology, stations: topology.stations.filter((s) => s.id !== b.id) };
    const has = async (t: typeof topology) =>
      (await tally.family(t, () => [], { yielder })).samples.some((s) => s.labels.text.includes(b.id));
    expect(await has(without)).toBe(false);
    // Forgotten: back in the topology, it starts from nothing.
    expect(await has(topology)).toBe(false);
  });
});
