/** Maps the configured targets onto the topology; asks the upstream nothing. */
import type { Config } from '../../config/schema.ts';
import type { Job, Needs, PollContext, PollOutcome } from '../collector.ts';
import { type TargetRow, targetFamilies } from './families.ts';
import { targetsOf } from './match.ts';

/** What the targets job uses of the collector context. */
export type TargetsNeeds = Needs<'config'>;

/** The targets job. */
export class TargetsJob implements Job<PollContext, PollOutcome> {
  readonly #settings: Config['targets'];

  constructor(ctx: TargetsNeeds) {
    this.#settings = ctx.config.targets;
  }

  async poll({ topology }: PollContext): Promise<PollOutcome> {
    const settings = this.#settings;
    const stations: TargetRow[] = topology.stations.map((s) => ({
      labels: s.labels,
      targets: targetsOf(settings, { site: s.site, line: s.line, station: s }),
    }));
    // A line is matched by its own site and line, not through its stations: on a shard, a
    // line's stations may belong to other replicas.
    const lines: TargetRow[] = topology.lines.flatMap((l) =>
      l.site && l.line
        ? [{ labels: l.labels, targets: targetsOf(settings, { site: l.site, line: l.line }) }]
        : [],
    );
    return { families: targetFamilies(lines, stations), requests: 0, failures: 0 };
  }
}
