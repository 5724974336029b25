/** The `planning` and `sharding` sections of the config: the request plan, the series budget, replicas. */
import { z } from 'zod';
import { always, isRecord, period } from './fields.ts';

export const planningSchema = z
  .strictObject({
    refresh: z
      .record(z.string(), period())
      .default({})
      .describe(
        'Per window name, a fixed summary refresh instead of the planned one, e.g. `{ 24h: 15m }`. ' +
          'Unset windows get a default that grows with their length (15m -> 1m, 1h -> 2m, 24h -> 10m).',
      ),
    max_refresh: period()
      .prefault('15m')
      .describe('The longest refresh the planner may give any window when the budget is tight.'),
    retry_reserve: z
      .number()
      .min(0)
      .max(0.5)
      .default(0.05)
      .describe('Share of the request budget kept free for retries; the plan fills the rest.'),
    max_series: z
      .int()
      .min(1)
      .optional()
      .describe(
        'Most series the exporter serves. Past it, whole families are dropped, lowest priority first ' +
          '(see README "Running at scale"); unset: no limit.',
      ),
  })
  .prefault({})
  .transform((p) => ({
    refreshMs: new Map(Object.entries(p.refresh)),
    maxRefreshMs: p.max_refresh,
    retryReserve: p.retry_reserve,
    maxSeries: p.max_series,
  }))
  .describe('The request plan and the series budget.');

export const shardingSchema = z
  .strictObject({
    index: z.int().min(0).optional().describe("This replica's shard, counting from 0."),
    total: z.int().min(1).max(1024).optional().describe('Number of shards (replicas).'),
    max_requests_per_second: z
      .number()
      .positive()
      .optional()
      .describe('Request budget of this replica; default `upstream.max_requests_per_second / total`.'),
  })
  .superRefine((s, ctx) => {
    if (!isRecord(s)) return;
    if ((s.index === undefined) !== (s.total === undefined)) {
      ctx.addIssue({ code: 'custom', message: 'set both index and total, or neither' });
    } else if (typeof s.index === 'number' && typeof s.total === 'number' && s.index >= s.total) {
      ctx.addIssue({ code: 'custom', message: `index must be below total (${s.total})`, path: ['index'] });
    }
  }, always)
  .prefault({})
  .transform((s) => ({
    shard: s.index === undefined || s.total === undefined ? undefined : { index: s.index, total: s.total },
    maxRequestsPerSecond: s.max_requests_per_second,
  }))
  .describe(
    'Sharding across replicas: stations by rendezvous hashing of their id. The `--shard i/n` flag, or ' +
      'STATION_EXPORTER_SHARDS with a StatefulSet pod name, take precedence over `index`/`total`.',
  );
