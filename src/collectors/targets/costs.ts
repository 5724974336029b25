/** What the targets collector costs: its target gauges per line and station; no upstream request. */
import type { CollectorCosts } from '../../model/plan.ts';
import { TARGET_DESCS } from './families.ts';

export const targetsCosts: CollectorCosts = {
  series: (_config, counts) =>
    TARGET_DESCS.map((d) => ({
      collector: 'targets',
      family: d.name,
      series: d.name.startsWith('station_line_') ? counts.lines : counts.stations,
    })),
};
