/**
 * The units collector's CUSUMs over a plant of one line with two stations, counting events from
 * {@link START}; shared by the behaviour tests and the memory test of `UnitCusums`.
 */
import { UnitCusums } from '../../src/collectors/units/cusum.ts';
import { targetsSchema } from '../../src/config/targets-schema.ts';
import { UNIT_CUSUM_KINDS, unitsCusumSchema } from '../../src/config/units-cusum-schema.ts';
import type { UnitRecord } from '../../src/upstream/types.ts';
import { LoopYielder } from '../../src/util/loop-yield.ts';
import { plantOf, topologyOf } from './fake-client.ts';

export const START = Date.parse('2026-11-21T12:00:00Z');
export const MIN = 60_000;

/** Every kind at both levels, with the statistics: what the behaviour tests look at. */
const EVERY_CHART = { station_kinds: [...UNIT_CUSUM_KINDS], statistic: true };

/**
 * The CUSUMs with default settings, except that every chart and statistic is exported unless
 * `cusum` says otherwise (raw `units.cusum` config); `u`: a passed output unit at station `a`,
 * `minutes` after {@link START}, with `over` replacing fields; `value`: a family's sample of a kind
 * (at a station).
 */
export function unitCusumsRig(
  opts: { readonly lineCharts?: 'on' | 'off'; readonly cusum?: Record<string, unknown> } = {},
) {
  const topology = topologyOf([plantOf([2])]);
  const [a, b] = topology.stations;
  const cusums = new UnitCusums({
    cusum: unitsCusumSchema.parse(opts.cusum ?? EVERY_CHART),
    targets: targetsSchema.parse({}),
    countFrom: START,
    yielder: new LoopYielder(),
    lineCharts: opts.lineCharts ?? 'on',
  });
  const u = (minutes: number, over: Partial<UnitRecord> = {}): UnitRecord => ({
    stationId: a!.id,
    slot: null,
    serial: `SN${minutes}`,
    time: START + minutes * MIN,
    direction: 'output',
    result: 'pass',
    unitType: null,
    mode: null,
    ...over,
  });
  const value = (family: string, kind: string, station?: string) => {
    const f = cusums.families().find((x) => x.desc.name === family)!;
    const s = f.samples.find(
      (x) => x.labels.text.includes(`kind="${kind}"`) && (!station || x.labels.text.includes(`"${station}"`)),
    );
    return s?.value;
  };
  return { topology, a: a!, b: b!, cusums, u, value };
}
