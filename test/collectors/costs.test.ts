import { describe, expect, it } from 'vitest';
import { recordRequestsPerPoll, stationsPerRequest } from '../../src/collectors/records-cost.ts';
import { summaryRequestsPerLevel } from '../../src/collectors/summary/costs.ts';
import type { LabelSet } from '../../src/exposition/model.ts';
import type { Entity, Level } from '../../src/model/topology.ts';
import { requestUrl } from '../../src/upstream/endpoints.ts';

function id(n: number): string {
  return n.toString(16).padStart(24, '0');
}

describe('summaryRequestsPerLevel', () => {
  it('counts entities of a level with the same station list once', () => {
    const entity = (level: Level, n: number, stations: number[]): Entity =>
      ({
        level,
        id: id(n),
        stationIds: stations.map(id),
        allStationIds: stations.map(id),
        labels: undefined as unknown as LabelSet,
      }) as Entity;
    const topology = {
      stations: [1, 2, 3].map((n) => entity('station', n, [n])),
      // Two groups with the same stations share a request.
      groups: [entity('group', 10, [1, 2]), entity('group', 11, [1, 2])],
      lines: [entity('line', 20, [1, 2]), entity('line', 21, [3])],
      sites: [entity('site', 30, [1, 2, 3])],
    } as unknown as Parameters<typeof summaryRequestsPerLevel>[0];
    expect(summaryRequestsPerLevel(topology, ['station', 'group', 'line', 'site'])).toEqual({
      station: 3,
      group: 1,
      line: 2,
      site: 1,
    });
    expect(summaryRequestsPerLevel(topology, ['site'])).toEqual({ site: 1 });
  });
});

describe('stationsPerRequest', () => {
  it('matches the URLs the client builds', () => {
    const base = 'https://stations.example.com/api';
    const window = { from: new Date('2024-03-04T00:00:00Z'), to: new Date('2024-03-04T00:01:00Z') };
    const url = (count: number) =>
      requestUrl(base, 'units', { stationIds: Array.from({ length: count }, (_, i) => id(i)), ...window });
    const fixed = url(0).length + '&station_ids='.length;
    for (const max of [1024, 8192, 16_384]) {
      const k = stationsPerRequest(max, fixed);
      expect(url(k).length).toBeLessThanOrEqual(max);
      expect(url(k + 1).length).toBeGreaterThan(max);
    }
  });

  it('gives the requests of a caught-up records poll', () => {
    expect(recordRequestsPerPoll(1000, 325)).toBe(4);
    expect(recordRequestsPerPoll(0, 325)).toBe(0);
    expect(() => recordRequestsPerPoll(10, 0)).toThrow(RangeError);
  });
});
