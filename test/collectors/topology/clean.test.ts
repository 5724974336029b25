/**
 * Issue 33, defects 2 and 4: what the upstream puts in names and descriptions reaches /metrics
 * masked and capped. A gateway that reflects the Authorization header into station descriptions
 * and site names, and a 1 MB station name.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { TopologyJob } from '../../../src/collectors/topology/job.ts';
import { MAX_LABEL_VALUE_LENGTH } from '../../../src/model/label-values.ts';
import type { Site } from '../../../src/upstream/types.ts';
import { Redactor } from '../../../src/util/redact.ts';
import { plantOf } from '../../helpers/fake-client.ts';
import { jobContext } from '../../helpers/job-context.ts';

const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2VjcmV0LXNpZ25hdHVyZQ';
const now = new Date('2026-03-01T12:00:00Z');

/** The plant as an upstream that reflects the request's Authorization header answers it. */
function echoing(site: Site): Site {
  const header = `Bearer ${TOKEN}`;
  return {
    ...site,
    name: `${site.name} (${header})`,
    lines: site.lines.map((l) => ({
      ...l,
      elements: l.elements.map((e) => ({ ...e, description: `seen with ${header}` })),
    })),
  };
}

function setup(sites: () => Site[]) {
  const redactor = new Redactor();
  redactor.add(TOKEN);
  const lines: string[] = [];
  const ctx = {
    ...jobContext({}, { sites }),
    redact: redactor.apply,
    logger: pino({ level: 'warn' }, { write: (l: string) => void lines.push(l) }),
  };
  return { job: new TopologyJob(ctx), lines };
}

const allText = (out: Awaited<ReturnType<TopologyJob['poll']>>) =>
  [
    ...out.families.flatMap((f) => f.samples.map((s) => s.labels.text)),
    ...out.topology.stations.map((s) => s.labels.text),
    ...out.topology.sites.map((s) => s.labels.text),
  ].join('\n');

describe('topology labels from a hostile upstream', () => {
  it('mask an echoed Authorization header in site names and station descriptions, counted, logged once', async () => {
    const plant = plantOf([2, 1]);
    const { job, lines } = setup(() => [echoing(plant)]);
    const out = await job.poll({ now });
    const text = allText(out);
    expect(text).not.toContain(TOKEN);
    expect(text).toContain('site="Plant (Bearer [REDACTED])"');
    expect(text).toContain('description="seen with Bearer [REDACTED]"');
    // One site name and three descriptions.
    expect(out.diagnostics?.labelValues).toEqual([{ reason: 'secret', count: 4 }]);
    const again = await job.poll({ now });
    expect(again.diagnostics?.labelValues).toEqual([{ reason: 'secret', count: 4 }]);
    expect(lines).toHaveLength(1);
    expect(lines.join('')).not.toContain(TOKEN);
  });

  it('cap a 1 MB station name on every series, and leave out a station whose id is 1 MB', async () => {
    const plant = plantOf([3]);
    const [a, b, c] = plant.lines[0]?.elements ?? [];
    const huge = 'N'.repeat(1 << 20);
    const hostile: Site = {
      ...plant,
      lines: [
        {
          ...plant.lines[0]!,
          elements: [{ ...a!, name: huge }, { ...b!, id: 'f'.repeat(1 << 20) }, c!],
        },
      ],
    };
    const { job } = setup(() => [hostile]);
    const out = await job.poll({ now });
    expect(out.topology.stations.map((s) => s.id)).toEqual([a?.id, c?.id]);
    const name = /station="(N+…)"/.exec(out.topology.stations[0]?.labels.text ?? '')?.[1];
    expect(name).toHaveLength(MAX_LABEL_VALUE_LENGTH);
    // The left-out station keeps the others' positions along the line.
    expect(out.topology.stations.map((s) => s.position)).toEqual([1, 3]);
    expect(allText(out).length).toBeLessThan(4096);
    expect(out.diagnostics?.labelValues).toEqual([{ reason: 'too_long', count: 2 }]);
  });
});
