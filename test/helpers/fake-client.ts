/**
 * A fake upstream client for job unit tests: answers come from functions the test gives,
 * and every call is recorded. No socket, no simulator.
 */
import { buildTopology } from '../../src/collectors/topology/build.ts';
import type { Topology } from '../../src/model/topology.ts';
import type { UpstreamClient } from '../../src/upstream/client.ts';
import {
  type MetricsQuery,
  requestUrl,
  type UnitsQuery,
  type WindowQuery,
} from '../../src/upstream/endpoints.ts';
import type {
  MeasurementRecord,
  RecordList,
  Site,
  StationSummary,
  UnitRecord,
} from '../../src/upstream/types.ts';

export interface FakeAnswers {
  sites?: () => Site[];
  summary?: (q: WindowQuery & { stationIds: readonly string[] }) => StationSummary;
  metrics?: (q: MetricsQuery) => MeasurementRecord[];
  units?: (q: UnitsQuery) => UnitRecord[];
}

export interface FakeClient extends UpstreamClient {
  readonly calls: Array<{ endpoint: string; query?: unknown }>;
  answers: FakeAnswers;
}

const list = <T>(records: T[]): RecordList<T> => ({ records, skipped: {}, received: records.length });

/** Throws like a missing answer would; tests set the answers they need. */
function unset(what: string): never {
  throw new Error(`fake client: no ${what} answer set`);
}

export function fakeClient(answers: FakeAnswers = {}, baseUrl = 'http://fake'): FakeClient {
  const calls: Array<{ endpoint: string; query?: unknown }> = [];
  const client: FakeClient = {
    calls,
    answers,
    async listSites() {
      calls.push({ endpoint: 'sites' });
      return list((client.answers.sites ?? (() => unset('sites')))());
    },
    async getSite(id) {
      calls.push({ endpoint: 'site', query: id });
      return list((client.answers.sites ?? (() => unset('sites')))().filter((s) => s.id === id));
    },
    async stationSummary(q) {
      calls.push({ endpoint: 'station_summary', query: q });
      return (client.answers.summary ?? (() => unset('summary')))(q);
    },
    async metrics(q) {
      calls.push({ endpoint: 'metrics', query: q });
      return list((client.answers.metrics ?? (() => unset('metrics')))(q));
    },
    async units(q) {
      calls.push({ endpoint: 'units', query: q });
      return list((client.answers.units ?? (() => unset('units')))(q));
    },
    urlLength: (endpoint, query) => requestUrl(baseUrl, endpoint, query).length,
    async close() {},
  };
  return client;
}

/** A 24-hex id from a number. */
export const hexId = (n: number) => n.toString(16).padStart(24, '0');

/** One site with one line per entry of `lines`, each holding that many single stations. */
export function plantOf(lines: readonly number[]): Site {
  let next = 100;
  return {
    id: hexId(1),
    name: 'Plant',
    description: '',
    lines: lines.map((n, i) => ({
      id: hexId(10 + i),
      name: `Line ${i + 1}`,
      description: '',
      elements: Array.from({ length: n }, () => {
        const id = hexId(next++);
        return { kind: 'station' as const, id, name: `S${id.slice(-3)}`, description: '' };
      }),
    })),
  };
}

/** The topology of `sites` with no filters. */
export function topologyOf(sites: Site[]): Topology {
  const none = { sites: [], lines: [], stations: [] };
  return buildTopology(sites, { stationIds: [], include: none, exclude: none }, []);
}
