/**
 * Bytes per record held by the measurement and unit stores, not a test:
 *
 *   npm run bench:records [-- --stations 1000 --hours 24]
 *
 * Fills each store as polls would, in steady state: one poll a minute for the window plus an
 * hour, each adding the minute's records and evicting those older than the window, so that the
 * columns have grown, been evicted from and been compacted as they are in a running exporter.
 * The shapes are the reference plant's: 1,000 stations in lines of 10, every unit visiting each
 * station of its line; 5 measurement names per station, one record per name and visit, sharing
 * the visit's time and serial; a unit's input and output records at a station, a cycle apart.
 * Defaults give about 1,000,000 records of each kind over 24 h. Memory is the V8 heap in use plus
 * array buffers after a full garbage collection, against the same before the store existed
 * (the V8 flag is set from inside, so no --expose-gc is needed), divided by the records held.
 */
import { parseArgs } from 'node:util';
import v8 from 'node:v8';
import vm from 'node:vm';
import { MeasurementStore } from '../../src/collectors/measurements/store.ts';
import { UnitStore } from '../../src/collectors/units/store.ts';
import type { MeasurementRecord, UnitRecord } from '../../src/upstream/types.ts';
import { count } from '../shared/format.ts';
// splitmix32: every run holds the same records.
import { splitmix32 } from '../shared/random.ts';

const { values: args } = parseArgs({
  options: {
    stations: { type: 'string', default: '1000' },
    hours: { type: 'string', default: '24' },
  },
});
const STATIONS = Number(args.stations);
const WINDOW_MS = Number(args.hours) * 3_600_000;
const STATIONS_PER_LINE = 10;
const NAMES = ['voltage', 'current', 'torque', 'leak_rate', 'temperature'];
const MINUTE = 60_000;
const START = Date.UTC(2026, 10, 21, 0, 0, 0);
/** Measured visits per station and hour: 200 a day, so 5 names give 1,000 records a station a day. */
const MEASURED_PER_HOUR = 200 / 24;
/** Units per station and hour: 500 a day, an input and an output record each. */
const UNITS_PER_HOUR = 500 / 24;

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

function heapNow(): number {
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

const stationId = (s: number) => s.toString(16).padStart(24, '0');
const serialOf = (line: number, k: number) => `L${line}-${String(k).padStart(8, '0')}`;

/**
 * The `k`-th visit of a line's units to a station: its time, from a fixed rate with a seeded
 * jitter, and the unit's serial (the line's k-th unit, which visits every station of the line).
 */
function visitTime(perHour: number, station: number, k: number): number {
  const step = 3_600_000 / perHour;
  const jitter = splitmix32(station * 7919 + k)() * step * 0.5;
  return START + Math.floor(k * step + ((station % STATIONS_PER_LINE) * step) / STATIONS_PER_LINE + jitter);
}

function measurementsIn(from: number, to: number): MeasurementRecord[] {
  const out: MeasurementRecord[] = [];
  const step = 3_600_000 / MEASURED_PER_HOUR;
  for (let s = 0; s < STATIONS; s++) {
    const line = Math.floor(s / STATIONS_PER_LINE);
    const rnd = splitmix32(s + from);
    for (let k = Math.max(0, Math.floor((from - START) / step) - 1); ; k++) {
      const time = visitTime(MEASURED_PER_HOUR, s, k);
      if (time >= to) break;
      if (time < from) continue;
      const serial = serialOf(line, k);
      for (let n = 0; n < NAMES.length; n++) {
        // Values with the resolution of a gauge: three decimals around a nominal.
        const value = Math.round((10 * (n + 1) + (rnd() - 0.5)) * 1000) / 1000;
        out.push({
          stationId: stationId(s),
          slot: null,
          serial,
          time,
          name: NAMES[n] as string,
          raw: String(value),
          value,
          unit: 'V',
          type: 'float',
          upper: 10 * (n + 1) + 1,
          lower: 10 * (n + 1) - 1,
          mode: null,
        });
      }
    }
  }
  return out;
}

function unitsIn(from: number, to: number): UnitRecord[] {
  const out: UnitRecord[] = [];
  const step = 3_600_000 / UNITS_PER_HOUR;
  for (let s = 0; s < STATIONS; s++) {
    const line = Math.floor(s / STATIONS_PER_LINE);
    for (let k = Math.max(0, Math.floor((from - START) / step) - 2); ; k++) {
      const input = visitTime(UNITS_PER_HOUR, s, k);
      if (input >= to) break;
      const output = input + Math.floor(step * 0.6);
      const base = {
        stationId: stationId(s),
        slot: null,
        serial: serialOf(line, k),
        unitType: null,
        mode: null,
      };
      const draw = splitmix32(s * 131 + k)();
      const result = draw < 0.02 ? null : draw < 0.07 ? 'fail' : 'pass';
      if (input >= from) out.push({ ...base, time: input, direction: 'input', result: null });
      if (output >= from && output < to) out.push({ ...base, time: output, direction: 'output', result });
    }
  }
  return out;
}

interface Store<R> {
  add(records: readonly R[]): unknown;
  evictBefore(t: number): void;
  size(): number;
  bytes(): number;
}

/** Fills a store minute by minute over the window and an hour more; returns bytes per record. */
function steadyState<R>(store: Store<R>, recordsIn: (from: number, to: number) => R[]) {
  const before = heapNow();
  const end = START + WINDOW_MS + 3_600_000;
  for (let t = START; t < end; t += MINUTE) {
    store.add(recordsIn(t, t + MINUTE));
    store.evictBefore(t + MINUTE - WINDOW_MS);
  }
  const held = store.size();
  const bytes = heapNow() - before;
  return { held, bytes, perRecord: bytes / held, columns: store.bytes() / held };
}

function report(kind: string, r: ReturnType<typeof steadyState>) {
  console.log(
    `${kind}: ${count(r.held)} records held, ${(r.bytes / 2 ** 20).toFixed(1)} MiB, ${r.perRecord.toFixed(1)} bytes per record (of which columns ${r.columns.toFixed(1)})`,
  );
}

const measurements = new MeasurementStore();
report('measurement records', steadyState(measurements, measurementsIn));
const units = new UnitStore();
report('unit records', steadyState(units, unitsIn));
// Both stores stay reachable until both are measured.
if (measurements.size() + units.size() < 0) console.log('');
