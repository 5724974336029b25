/**
 * The soak run's upstream in a process of its own: simulator and fault proxy, so that their
 * memory (a 5 MB padded answer is built here) does not count in the exporter's RSS. Sends
 * `{ url, stations, names }` once, then applies every `ProxyFaults` message it receives.
 */

import { startSimulatorServer } from '../../src/simulator/server.ts';
import { type ProxyFaults, startFaultProxy } from '../shared/fault-proxy.ts';

const token = JSON.parse(process.argv[2] ?? '""') as string;
const sim = await startSimulatorServer({
  seed: 11,
  scale: { sites: 2, linesPerSite: 5, stationsPerLine: 8, measurementNames: 6, unitsPerHour: 60 },
  tokens: { [token]: { sites: 'all' } },
});
const proxy = await startFaultProxy(sim.url);
process.on('message', (faults: ProxyFaults) => proxy.set(faults));
process.on('disconnect', () => {
  void proxy.close().then(() => sim.close());
});
process.send?.({
  url: proxy.url,
  stations: sim.sim.plant.stations.map((s) => s.id),
  names: sim.sim.plant.measurementNames,
});
