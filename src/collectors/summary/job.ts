/** The summary collector's job: fetch summaries, keep last good answers, publish gauges. */

import type { CollectorJob, JobDeps } from '../collector.ts';
import { summaryFamilies } from './families.ts';
import { pollSummaries, type SummaryMemory } from './plan.ts';

/** A failed entity keeps its last good answer for this many intervals. */
const STALENESS_INTERVALS = 5;

/** Creates the summary job. */
export function createSummaryJob(deps: JobDeps): CollectorJob {
  const { config, logger, self } = deps;
  let memory: SummaryMemory = new Map();
  let scaleWarned = false;
  return {
    name: 'summary',
    intervalMs: config.summary.intervalMs,
    async poll({ topology, now, signal }) {
      const poll = await pollSummaries(
        deps.client,
        topology,
        {
          levels: config.summary.levels,
          windows: config.windows,
          yieldScale: config.summary.yieldScale,
          maxUrlLength: config.upstream.maxUrlLength,
          maxStalenessMs: STALENESS_INTERVALS * config.summary.intervalMs,
        },
        now,
        memory,
        signal,
      );
      memory = poll.memory;
      self.setUpstreamUp(poll.failures < poll.requests || poll.requests === 0);
      self.setLevelsSkipped(
        [...poll.skipped].map(([level, count]) => ({ level, reason: 'url_too_long', count })),
      );
      for (const [level, count] of poll.skipped) {
        logger.warn(
          { level, count, maxUrlLength: config.upstream.maxUrlLength },
          'summary level skipped: its station_ids list would exceed max_url_length, and unique counts cannot be combined from parts',
        );
      }
      if (poll.scaleMismatch && !scaleWarned) {
        scaleWarned = true;
        logger.warn(
          { yield_scale: config.summary.yieldScale },
          'a yield or retry rate is outside 0..1 after scaling: check summary.yield_scale',
        );
      }
      if (poll.failures > 0) {
        logger.warn(
          { failures: poll.failures, requests: poll.requests, err: poll.firstError?.message },
          'summary poll had failed requests; their series keep the last good values',
        );
      }
      return {
        families: summaryFamilies(config.summary.levels, poll.results),
        complete: poll.failures === 0,
      };
    },
  };
}
