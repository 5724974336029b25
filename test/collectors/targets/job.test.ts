import { describe, expect, it } from 'vitest';
import { TargetsJob } from '../../../src/collectors/targets/job.ts';
import { buildTopology } from '../../../src/collectors/topology/build.ts';
import type { Site } from '../../../src/upstream/types.ts';
import { hexId } from '../../helpers/fake-client.ts';
import { samplesOf } from '../../helpers/families.ts';
import { jobContext } from '../../helpers/job-context.ts';

const st = (n: number, name: string) => ({ kind: 'station' as const, id: hexId(n), name, description: '' });
const sites: Site[] = [
  {
    id: hexId(1),
    name: 'Austin',
    description: '',
    lines: [
      { id: hexId(10), name: 'SMT 1', description: '', elements: [st(100, 'AOI'), st(101, 'ICT-1')] },
      { id: hexId(11), name: 'Box 1', description: '', elements: [st(110, 'ICT-2')] },
    ],
  },
  {
    id: hexId(2),
    name: 'Berlin',
    description: '',
    lines: [{ id: hexId(20), name: 'SMT 1', description: '', elements: [st(120, 'AOI')] }],
  },
];
const none = { sites: [], lines: [], stations: [] };
const topology = buildTopology(sites, { stationIds: [], include: none, exclude: none });

describe('targets job', () => {
  it('gives each line and station the first matching rule per target, else the default', async () => {
    const ctx = jobContext({
      targets: {
        default: { first_pass_yield: 0.9, final_yield: 0.95, retry_rate: 0.1 },
        rules: [
          // Station rules apply to stations only: no line gets retry 0.2.
          { station: 'ICT-.*', retry_rate: 0.2 },
          { site: 'Austin', line: 'SMT.*', final_yield: 0.99, retry_rate: 0.05 },
          // Later rules lose to earlier ones for the same target.
          { line: 'SMT 1', final_yield: 0.5, first_pass_yield: 0.8 },
        ],
      },
    });
    const out = await new TargetsJob(ctx).poll({ topology, now: new Date(0) });
    expect(out.requests).toBe(0);
    const s = samplesOf(out.families);
    const line = (site: string, l: string) => `site="${site}",line="${l}"`;
    expect(s.get(`station_line_target_final_yield_ratio{${line('Austin', 'SMT 1')}}`)).toBe(0.99);
    expect(s.get(`station_line_target_retry_ratio{${line('Austin', 'SMT 1')}}`)).toBe(0.05);
    expect(s.get(`station_line_target_first_pass_yield_ratio{${line('Austin', 'SMT 1')}}`)).toBe(0.8);
    expect(s.get(`station_line_target_final_yield_ratio{${line('Austin', 'Box 1')}}`)).toBe(0.95);
    expect(s.get(`station_line_target_retry_ratio{${line('Austin', 'Box 1')}}`)).toBe(0.1);
    expect(s.get(`station_line_target_final_yield_ratio{${line('Berlin', 'SMT 1')}}`)).toBe(0.5);
    const station = (site: string, l: string, name: string, n: number) =>
      `site="${site}",line="${l}",station="${name}",station_id="${hexId(n)}"`;
    expect(s.get(`station_target_retry_ratio{${station('Austin', 'SMT 1', 'ICT-1', 101)}}`)).toBe(0.2);
    expect(s.get(`station_target_retry_ratio{${station('Austin', 'SMT 1', 'AOI', 100)}}`)).toBe(0.05);
    expect(s.get(`station_target_retry_ratio{${station('Austin', 'Box 1', 'ICT-2', 110)}}`)).toBe(0.2);
    expect(s.get(`station_target_final_yield_ratio{${station('Berlin', 'SMT 1', 'AOI', 120)}}`)).toBe(0.5);
    // 3 lines and 4 stations, three targets each.
    expect(s.size).toBe(3 * 3 + 4 * 3);
  });

  it('matches rule patterns against ids as well as names', async () => {
    const ctx = jobContext({ targets: { rules: [{ line: hexId(11), final_yield: 0.7 }] } });
    const s = samplesOf((await new TargetsJob(ctx).poll({ topology, now: new Date(0) })).families);
    expect(s.get('station_line_target_final_yield_ratio{site="Austin",line="Box 1"}')).toBe(0.7);
    expect(s.get('station_line_target_final_yield_ratio{site="Austin",line="SMT 1"}')).toBe(0.95);
  });
});
