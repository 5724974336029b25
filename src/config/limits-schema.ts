/**
 * The approved-limits file (`measurements.control.limits_file`, docs/measurements.md "Approved
 * limits"): per chart the limits of a Phase I study, its exclusions and their approval. Written by
 * `limits study`, approved by a quality engineer; approved entries are charted frozen (Phase II).
 * Validated like the config: strict, every problem at once as `file: charts[3].center: message`.
 */
import { Worker } from 'node:worker_threads';
import { z } from 'zod';
import { MAX_PHI, MAX_SKEWNESS, MIN_PHI } from '../spc/calibration.ts';
import type { StudyShape } from '../spc/limits.ts';
import { readRegularFile } from '../util/read-file.ts';
import { maskCredentialLike } from '../util/redact.ts';
import { timestamp } from './control-schema.ts';
import type { Path } from './env.ts';
import { always, checkOrder, checkPair, hexId, isRecord, keyOrPeriod } from './fields.ts';
import { configErrorMap, flattenIssues, formatIssue, IssueListError } from './issues.ts';
import { parseYamlMapping, readErrorText } from './read-errors.ts';

/** Largest limits file read: some 30,000 entries of 500 bytes; YAML's node tree costs many times that. */
export const LIMITS_MAX_BYTES = 16 * 1024 * 1024;
/** Alias uses allowed (yaml's `maxAliasCount`): a written file has none, a hand-edited one a few. */
const LIMITS_MAX_ALIASES = 100;
/** How long reading the file may take (a hung network mount, say). */
const LIMITS_READ_TIMEOUT_MS = 10_000;

/**
 * Text that becomes a label value (`approved_by`, an exclusion's `cause`): plain, bounded, and
 * never credential-like, since /metrics is not masked.
 */
function labelText(max: number, what: string) {
  return z
    .string()
    .min(1)
    .max(max)
    .refine((v) => maskCredentialLike(v) === v, {
      error: 'looks like a credential; it would be exported as a label value on /metrics',
    })
    .refine((v) => !/[\p{Cc}]/u.test(v), { error: 'must not contain control characters' })
    .describe(what);
}

const nullableText = <T extends z.ZodType>(t: T) =>
  z
    .union([t, z.null()])
    .optional()
    .transform((v) => v ?? null);

const exclusionSchema = z
  .strictObject({
    from: timestamp('Start of an excluded period (inclusive).').optional(),
    to: timestamp('End of an excluded period (exclusive).').optional(),
    at: timestamp('Time of one excluded point.').optional(),
    cause: labelText(200, 'The assignable cause.'),
  })
  .superRefine(
    keyOrPeriod('at', {
      both: 'set either at (one point) or from and to, not both',
      neither: 'set at (one point) or from and to (a period)',
    }),
    always,
  )
  .transform((e) => {
    const fromMs = e.at ?? e.from ?? 0;
    return { fromMs, toMs: e.at ?? e.to ?? fromMs, cause: e.cause };
  });

const studySchema = z
  .strictObject({
    from: timestamp('Start of the study period (inclusive).'),
    to: timestamp('End of the study period (exclusive).'),
    points: z.int().min(0).describe('Points kept after the exclusions.'),
    excluded_points: z.int().min(0).describe('Points left out.'),
  })
  .superRefine(checkOrder, always)
  .transform((s) => ({ fromMs: s.from, toMs: s.to, points: s.points, excludedPoints: s.excluded_points }));

/**
 * The shape the study measured, which calibrates an approved chart's detectors as a rolling
 * baseline's (src/spc/calibration.ts); the ranges are its clamps, so a value is used as written.
 */
const calibrationSchema = z.strictObject({
  sd: z.number().positive().optional().describe('Standard deviation of all kept points; default: sigma.'),
  phi: z.number().min(MIN_PHI).max(MAX_PHI).optional().describe('Lag-1 autocorrelation (as estimated).'),
  skewness: z
    .number()
    .min(-MAX_SKEWNESS)
    .max(MAX_SKEWNESS)
    .optional()
    .describe('Skewness, shrunk towards 0, the transform follows.'),
  excess_kurtosis: z
    .number()
    .min(0)
    .optional()
    .describe('Excess kurtosis beyond normal data and the skewness, shrunk; the fast CUSUM widens for it.'),
});

const chartSchema = z
  .strictObject({
    station: z
      .string({
        error: (iss) =>
          typeof iss.input === 'number'
            ? 'must be quoted ("..."): YAML reads an id of digits only as a number'
            : undefined,
      })
      .pipe(hexId())
      .transform((id) => id.toLowerCase()),
    metric: z.string().min(1).max(200),
    slot: nullableText(z.string().min(1).max(200)),
    product: nullableText(z.string().min(1).max(200)),
    center: z.number(),
    sigma: z.number().positive(),
    ucl: z.number(),
    lcl: z.number(),
    study: studySchema.optional(),
    calibration: calibrationSchema.optional(),
    excluded: z.array(exclusionSchema).max(1000).default([]),
    approved_by: nullableText(labelText(64, 'Who approved the limits.')),
    approved_at: nullableText(timestamp('When the limits were approved.')),
    reason: nullableText(z.string().min(1).max(1000)),
  })
  .superRefine((c, ctx) => {
    if (!isRecord(c)) return;
    checkLimits(c, ctx);
    checkApproval(c, ctx);
  }, always)
  .transform(({ study, calibration: shape, approved_by, approved_at, ...c }) => ({
    ...c,
    study: study ?? null,
    /** The shape the study measured (`sd` read as `sigma`); null: none (centre and sigma as given). */
    calibration:
      shape === undefined
        ? null
        : ({
            sigma: shape.sd ?? c.sigma,
            phi: shape.phi ?? 0,
            skewness: shape.skewness ?? 0,
            excessKurtosis: shape.excess_kurtosis ?? 0,
          } satisfies StudyShape),
    /** Null until approved; only approved entries are charted against. */
    approvedBy: approved_by,
    approvedAtMs: approved_at,
  }));

type Ctx = z.core.$RefinementCtx;

/** lcl < center < ucl (each checked once the numbers parsed). */
function checkLimits(c: Record<string, unknown>, ctx: Ctx): void {
  const { center, ucl, lcl } = c;
  if (typeof center !== 'number' || typeof ucl !== 'number' || typeof lcl !== 'number') return;
  if (!(lcl < center)) ctx.addIssue({ code: 'custom', message: 'must be below center', path: ['lcl'] });
  if (!(center < ucl)) ctx.addIssue({ code: 'custom', message: 'must be above center', path: ['ucl'] });
}

/** approved_by and approved_at together, and a reason with them. */
function checkApproval(c: Record<string, unknown>, ctx: Ctx): void {
  checkPair(c, ctx, 'approved_by', 'approved_at');
  const approving = [c.approved_by, c.approved_at].some((v) => v !== undefined && v !== null);
  if (approving && (c.reason === undefined || c.reason === null))
    ctx.addIssue({ code: 'custom', message: 'is required to approve', path: ['reason'] });
}

const fileSchema = z
  .strictObject({
    version: z.literal(1, { error: 'must be 1 (the only version of this format)' }),
    charts: z.array(chartSchema),
  })
  .superRefine((f, ctx) => {
    if (isRecord(f) && Array.isArray(f.charts)) reportDuplicateCharts(f.charts, ctx);
  }, always);

/** Two entries of one chart: an error at the second, naming the first. */
function reportDuplicateCharts(charts: readonly unknown[], ctx: Ctx): void {
  const seen = new Map<string, number>();
  charts.forEach((c, index) => {
    if (!isRecord(c) || typeof c.station !== 'string' || typeof c.metric !== 'string') return;
    const key = chartKey({
      station: c.station,
      metric: c.metric,
      slot: typeof c.slot === 'string' ? c.slot : null,
      product: typeof c.product === 'string' ? c.product : null,
    });
    const first = seen.get(key);
    if (first === undefined) seen.set(key, index);
    else
      ctx.addIssue({
        code: 'custom',
        message: `the same chart as charts[${first}] (station, metric, slot and product)`,
        path: ['charts', index],
      });
  });
}

/** One entry of the file: a chart's limits, the study they came from, and their approval. */
export type ChartLimits = Readonly<z.output<typeof chartSchema>>;

/** Which chart an entry is for. The station id is lower case. */
export type ChartIdentity = Pick<ChartLimits, 'station' | 'metric' | 'slot' | 'product'>;

/** The key of a chart in a {@link LimitsFile}. */
function chartKey(c: ChartIdentity): string {
  return [c.station.toLowerCase(), c.metric, c.slot ?? '', c.product ?? ''].join('\u0000');
}

/** Only this module makes a {@link LimitsFile}. */
const MADE_HERE = Symbol('limits file');

/** A validated limits file: its entries, and the approved ones by chart. */
export class LimitsFile {
  /** The file the entries came from, for messages. */
  readonly source: string;
  /** Every entry, in file order (index i is `charts[i]`). */
  readonly charts: readonly ChartLimits[];
  readonly #approved = new Map<string, ChartLimits>();

  constructor(made: typeof MADE_HERE, source: string, charts: readonly ChartLimits[]) {
    if (made !== MADE_HERE) throw new TypeError('a LimitsFile comes from parseLimits or loadLimitsFile');
    this.source = source;
    this.charts = charts;
    for (const c of charts) if (isApproved(c)) this.#approved.set(chartKey(c), c);
  }

  /** The approved entry of a chart, if any. */
  approved(chart: ChartIdentity): ChartLimits | undefined {
    return this.#approved.size === 0 ? undefined : this.#approved.get(chartKey(chart));
  }
}

/** Whether an entry is approved (approved_by and approved_at set): only then is it charted against. */
export function isApproved(c: ChartLimits): boolean {
  return c.approvedBy !== null && c.approvedAtMs !== null;
}

/** A limits file that cannot be used; `issues` holds every problem, each as `file: path: message`. */
export class LimitsFileError extends IssueListError {
  constructor(source: string, issues: readonly string[]) {
    super(`invalid limits file ${maskCredentialLike(source)}`, issues, `${source}: `);
    this.name = 'LimitsFileError';
  }
}

/** The mapping each key of the format holds (the root under ''), for "did you mean". */
const MAPPINGS: Record<string, { readonly shape: object }> = {
  '': fileSchema,
  charts: chartSchema.in,
  study: studySchema.in,
  calibration: calibrationSchema,
  excluded: exclusionSchema.in,
};

/** The keys of the mapping a path is in (this format's, not the config's). */
function keysAt(path: Path): string[] {
  const last = path.filter((s) => typeof s === 'string').at(-1) ?? '';
  return Object.keys(MAPPINGS[last]?.shape ?? {});
}

/** Validates YAML text as a limits file named `source`; throws {@link LimitsFileError} with every problem. */
export function parseLimits(yamlText: string, source: string): LimitsFile {
  const tree = parseYamlMapping(
    yamlText,
    { maxBytes: LIMITS_MAX_BYTES, maxAliases: LIMITS_MAX_ALIASES },
    {
      what: 'the file',
      empty: 'the file is empty',
      notMapping: 'the top level must be a mapping with version and charts',
    },
  );
  if ('issues' in tree) throw new LimitsFileError(source, tree.issues);
  const parsed = fileSchema.safeParse(tree.value, { error: configErrorMap });
  if (!parsed.success)
    throw new LimitsFileError(source, flattenIssues(parsed.error.issues, [], keysAt).map(formatIssue));
  return new LimitsFile(MADE_HERE, source, parsed.data.charts);
}

/** Reads and validates the limits file at `path`. Throws {@link LimitsFileError}. */
export async function loadLimitsFile(path: string): Promise<LimitsFile> {
  return parseLimits(await readLimitsText(path), path);
}

async function readLimitsText(path: string): Promise<string> {
  try {
    return await readRegularFile(path, { maxBytes: LIMITS_MAX_BYTES, timeoutMs: LIMITS_READ_TIMEOUT_MS });
  } catch (err) {
    throw new LimitsFileError(path, [`cannot read the file: ${readErrorText(err)}`]);
  }
}

/**
 * The worker thread's one answer (limits-worker.ts): the entries as JSON texts of 1,000 each (JSON
 * parses in half the time of a structured clone), or every problem of the file.
 */
export type LimitsAnswer =
  | { readonly chartsJson: readonly string[] }
  | { readonly issues: readonly string[] }
  | { readonly failed: string };

// Under tsx and vitest the worker's source runs with its types stripped; bundled, limits-worker.js
// is an entry point beside every chunk (scripts/bundle.mjs).
const WORKER_URL = new URL(
  import.meta.url.endsWith('.ts') ? './limits-worker.ts' : './limits-worker.js',
  import.meta.url,
);

/**
 * Characters of a file parsed on the event loop: about 30 entries, some 10 ms at the 0.7 ms per
 * KiB of bench/limits/limits-file.ts, where a thread costs some 0.35 s of CPU to start.
 */
const ON_LOOP_MAX_CHARS = 16 * 1024;

/**
 * {@link loadLimitsFile} for a process that serves while it reads: the file is read without
 * blocking, and parsed in a worker thread unless it is small, so the event loop only receives
 * the entries. Throws {@link LimitsFileError} as loadLimitsFile does, also when the thread fails
 * (out of memory, say), so that the caller keeps its last good file.
 */
export async function loadLimitsFileInThread(path: string): Promise<LimitsFile> {
  const text = await readLimitsText(path);
  if (text.length <= ON_LOOP_MAX_CHARS) return parseLimits(text, path);
  // No inherited flags: a loader such as tsx's would transform the thread's modules on the event
  // loop (half of its 100 ms per read of 10,000 entries under tsx).
  const worker = new Worker(WORKER_URL, { workerData: { path, text }, execArgv: [] });
  let answer: LimitsAnswer;
  try {
    answer = await new Promise<LimitsAnswer>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`the thread exited with code ${code}`)));
    });
  } catch (err) {
    answer = { failed: err instanceof Error ? err.message : String(err) };
  } finally {
    void worker.terminate();
  }
  if ('chartsJson' in answer) {
    const charts: ChartLimits[] = [];
    for (const batch of answer.chartsJson) {
      for (const c of JSON.parse(batch) as ChartLimits[]) charts.push(c);
      // A turn of the event loop between batches: a scrape waits for one batch, not the file.
      await new Promise((resolve) => setImmediate(resolve));
    }
    return new LimitsFile(MADE_HERE, path, charts);
  }
  if ('issues' in answer)
    throw new LimitsFileError(
      path,
      answer.issues.map((i) => (i.startsWith(`${path}: `) ? i.slice(path.length + 2) : i)),
    );
  throw new LimitsFileError(path, [`cannot read the file: ${answer.failed}`]);
}
