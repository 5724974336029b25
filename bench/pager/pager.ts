/**
 * `npm run bench:pager`: every shipped alert on a healthy plant, and the faults they exist for.
 *
 * For each run (the healthy plant, then one run per fault), for each seed: the exporter polls the
 * simulator on a simulated clock and its expositions are recorded at every scrape (record.ts, in
 * a child process: record-child.ts); promtool backfills them into a real Prometheus 2.42, which
 * evaluates each shipped alert expression (recording rules inlined) as a range query at its
 * group's interval (prometheus.ts, rules.ts); `for` and `keep_firing_for` (alert-state.ts) and the
 * shipped Alertmanager route, grouping, inhibition and repeat (dispatch.ts) turn those into
 * notifications. The rule files are the ones prometheus/prometheus.example.yml loads and the route
 * is prometheus/alertmanager.example.yml, both read at run time. Each figure of the results file
 * is the median over the seeds.
 *
 *   npx tsx bench/pager/pager.ts [--stations=200] [--days=7] [--poll=1] [--faults=all|none|NAME,...]
 *                                [--warm-hours=4.5] [--max-after-hours=24] [--seeds=7,8,9] [--jobs=3]
 *                                [--healthy-seeds=7,8,9] [--fault-units-per-hour=31.25]
 *                                [--fault-stations=20] [--cache-dir=DIR | --no-cache] [--only-cached]
 *                                [--reread-hours=168] [--plant=realistic|textbook] [--keep] [--no-results]
 *
 * Where the time goes (CPU profile of a 200-station recording, realistic plant, steady state): the
 * exporter's own work per 1-minute poll (decoding the answers, the unit statistics of every window,
 * the control charts, rendering and compressing the exposition) and its garbage collection are
 * most of it; the simulator's answers about a sixth, writing the scrapes about a tenth. That is
 * about 0.16 CPU seconds per station and simulated hour (31 to 35 a simulated hour at 200
 * stations), linear in stations: a 200-station week is about 1.5 CPU hours, so the recordings of several seeds and faults run side
 * by side (`--jobs`, one process each), are evaluated as each one ends, and are cached. Nothing
 * the alerts read is simplified to save time: the exporter runs its shipped code path at the
 * shipped 1-minute intervals and its own request plan; only the re-read sweep is set to a week
 * (record.ts says why that changes no sample).
 *
 * Recordings are kept in a cache (by default under the system's temp directory), keyed by what
 * they depend on: the run's spec, the selectors of the rules, and the source of the exporter and
 * simulator (record-cache.ts). A second run, or a run after a change of thresholds, `for` or
 * the route, backfills the cached file instead of recording it again; `--only-cached` evaluates
 * the recordings made so far and leaves the others out.
 *
 * Progress goes to stderr, the report (Markdown) to stdout.
 */
import { mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createSimulator } from '../../src/simulator/index.ts';
import type { PlantScale } from '../../src/simulator/types.ts';
import { arg } from '../shared/args.ts';
import { isMessage, runChild } from '../shared/child.ts';
import { median, type ResultRow, writeResults } from '../shared/results.ts';
import type { Curve } from '../shared/svg.ts';
import { type FiringSpan, firingSpans, labelKey } from './alert-state.ts';
import { AlertmanagerModel, type Notification } from './dispatch.ts';
import { bernoulliKl, detectionBoundUnits } from './information-limit.ts';
import { FAULT_HOURS, plantScale, REALISTIC_FAULT_UNITS_PER_HOUR, START, UNITS_PER_HOUR } from './plant.ts';
import { BackfilledPrometheus } from './prometheus.ts';
import { type Keep, plantOption, type RecordSpec, type TimedFault } from './record.ts';
import { cachedRecording } from './record-cache.ts';
import type { RecordChildSpec, RecordedMessage } from './record-child.ts';
import { parseAlertmanagerConfig } from './route.ts';
import { defaultRuleFiles, evaluationIntervalMs, loadAlerts, type ShippedAlert } from './rules.ts';
import { type FaultCase, faultCases, isExpected, plantModel } from './scenarios.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
/** Notifications in the first hour are left out: Prometheus has no earlier data (rates, windows). */
const SETTLE_MS = HOUR;
const NAMES = ['vcc_3v3', 'idle_current', 'solder_height', 'board_temp', 'insulation_resistance'];
/** The Bernoulli charts' in-control run length (units.cusum.arl0): the information limit's A. */
const A = 2e6;

const progress = (text: string) => process.stderr.write(`${text}\n`);

/** What one run gives: its notifications and the alerts' firing spans. */
interface RunResult {
  readonly notifications: Notification[];
  readonly spans: FiringSpan[];
  /** Wall time of the backfill, the queries and the Alertmanager model. */
  readonly evaluateSeconds: number;
  /** Wall and CPU time of the recording (0 from the cache). */
  readonly recordSeconds: number;
  readonly recordCpuSeconds: number;
}

interface Shipped {
  readonly alerts: ShippedAlert[];
  readonly keep: Keep;
  readonly am: ReturnType<typeof parseAlertmanagerConfig>;
}

function shipped(): Shipped {
  const promConfig = path.resolve('prometheus/prometheus.example.yml');
  const { alerts, selectors } = loadAlerts(defaultRuleFiles(promConfig), evaluationIntervalMs(promConfig));
  const am = parseAlertmanagerConfig(
    readFileSync(path.resolve('prometheus/alertmanager.example.yml'), 'utf8'),
  );
  return { alerts, keep: selectors, am };
}

/** One run: a recording (healthy plant or one fault) of one seed, and what it is judged on. */
interface RunPlan {
  readonly seed: number;
  readonly name: string;
  readonly spec: Omit<RecordSpec, 'out' | 'progress'>;
  readonly fault?: FaultCase;
  readonly faultMs?: number;
}

/** Where each run's recording is: the cache's file, or a file of the run's own folder. */
interface Recorded {
  readonly file: string;
  readonly recordSeconds: number;
  readonly cpuSeconds: number;
}

/** Records `plan` in a child process (record-child.ts) into `file`. */
async function recordInChild(plan: RunPlan, file: string): Promise<RecordedMessage> {
  const arg: RecordChildSpec = {
    ...plan.spec,
    keep: [...plan.spec.keep],
    out: file,
    label: `seed ${plan.seed} ${plan.name}`,
  };
  return runChild(new URL('./record-child.ts', import.meta.url), arg, isMessage<RecordedMessage>('recorded'));
}

/**
 * Every plan's recording: from the cache when it is there, else recorded, `jobs` at a time in
 * child processes (each recording is one single-threaded exporter and simulator). Each plan's
 * promise settles when its recording is there, so that it can be evaluated while others record.
 */
function recordAll(
  plans: readonly RunPlan[],
  opts: {
    readonly jobs: number;
    readonly cacheDir?: string;
    readonly dir: string;
    readonly onlyCached: boolean;
  },
): { readonly recordings: Map<RunPlan, Promise<Recorded>>; readonly done: Promise<void> } {
  const out = new Map<RunPlan, Promise<Recorded>>();
  const todo: Array<{ plan: RunPlan; file: string; cached?: string; settle: (r: Recorded) => void }> = [];
  plans.forEach((plan, i) => {
    const own = path.join(opts.dir, `run-${i}.om`);
    const cached = opts.cacheDir ? cachedRecording(opts.cacheDir, { ...plan.spec, out: own }) : undefined;
    if (cached?.hit) {
      progress(`seed ${plan.seed} ${plan.name}: recording from the cache (${cached.file})`);
      out.set(plan, Promise.resolve({ file: cached.file, recordSeconds: 0, cpuSeconds: 0 }));
    } else if (opts.onlyCached) progress(`seed ${plan.seed} ${plan.name}: not recorded yet, left out`);
    else {
      let settle: (r: Recorded) => void = () => {};
      out.set(plan, new Promise<Recorded>((r) => (settle = r)));
      todo.push({ plan, file: cached?.file ?? own, ...(cached ? { cached: cached.file } : {}), settle });
    }
  });
  const worker = async () => {
    for (let next = todo.shift(); next !== undefined; next = todo.shift()) {
      const { plan, file, cached } = next;
      progress(
        `seed ${plan.seed} ${plan.name}: recording ${((plan.spec.endMs - START) / HOUR).toFixed(0)} simulated hours`,
      );
      // Whole or not at all: an interrupted recording must not be taken for one.
      const part = cached ? `${file}.${process.pid}.part` : file;
      const rec = await recordInChild(plan, part);
      if (cached) renameSync(part, file);
      progress(
        `seed ${plan.seed} ${plan.name}: ${rec.scrapes} scrapes, ${(rec.bytes / 2 ** 20).toFixed(0)} MiB in ${rec.wallSeconds.toFixed(0)} s (CPU ${rec.cpuSeconds.toFixed(0)} s)`,
      );
      next.settle({ file, recordSeconds: rec.wallSeconds, cpuSeconds: rec.cpuSeconds });
    }
  };
  const done = Promise.all(Array.from({ length: Math.max(1, opts.jobs) }, worker)).then(() => undefined);
  return { recordings: out, done };
}

/** Backfills one recording into a real Prometheus and turns its alerts into notifications. */
async function evaluate(
  s: Shipped,
  run: { readonly plan: RunPlan; readonly recorded: Recorded; readonly keepFiles: boolean },
): Promise<RunResult> {
  const started = performance.now();
  const { plan, recorded } = run;
  const endMs = plan.spec.endMs;
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-pager-'));
  progress(`seed ${plan.seed} ${plan.name}: backfilling and evaluating`);
  const prom = await BackfilledPrometheus.start(recorded.file, dir);
  const spans: FiringSpan[] = [];
  try {
    for (const alert of s.alerts) {
      const startMs = Math.ceil(START / alert.intervalMs) * alert.intervalMs;
      const evalTimes: number[] = [];
      for (let t = startMs; t <= endMs; t += alert.intervalMs) evalTimes.push(t);
      const matrix = await prom.range(alert.expr, { startMs, endMs, stepMs: alert.intervalMs });
      spans.push(...firingSpans(alert, matrix, evalTimes));
    }
  } finally {
    await prom.stop();
    if (!run.keepFiles) rmSync(dir, { recursive: true, force: true });
    else progress(`kept ${dir}`);
  }
  const notifications = new AlertmanagerModel(s.am, spans).run(endMs);
  return {
    notifications,
    spans,
    evaluateSeconds: (performance.now() - started) / 1000,
    recordSeconds: recorded.recordSeconds,
    recordCpuSeconds: recorded.cpuSeconds,
  };
}

/** alertname and severity of a notification (severities of its alerts, joined). */
function kindOf(n: Notification): string {
  const alerts = n.firing.length > 0 ? n.firing : n.resolved;
  const sev = [...new Set(alerts.map((a) => a.severity ?? ''))].sort().join('+');
  return `${alerts[0]?.alertname ?? '?'} (${sev})`;
}

/** One notification in a line of the progress log: when, what, and the first firing alert's labels. */
function describe(n: Notification): string {
  const a = n.firing[0] ?? {};
  const where = ['site', 'line', 'station', 'metric', 'slot', 'window', 'collector']
    .filter((k) => a[k] !== undefined && a[k] !== '')
    .map((k) => `${k}=${a[k]}`)
    .join(' ');
  return `${new Date(n.at).toISOString()} ${n.receiver} ${kindOf(n)} ×${n.firing.length} ${where}`;
}

function healthyTable(res: RunResult, opts: { readonly stations: number; readonly endMs: number }): string {
  const days = (opts.endMs - START - SETTLE_MS) / DAY;
  const per = (n: number) => (n / days / (opts.stations / 1000)).toFixed(1);
  const counted = res.notifications.filter((n) => n.at >= START + SETTLE_MS);
  const byKind = new Map<string, { firing: number; resolved: number }>();
  for (const n of counted) {
    const k = byKind.get(kindOf(n)) ?? { firing: 0, resolved: 0 };
    if (n.firing.length > 0) k.firing++;
    else k.resolved++;
    byKind.set(kindOf(n), k);
  }
  const firing = counted.filter((n) => n.firing.length > 0).length;
  const rows = [...byKind]
    .sort((a, b) => b[1].firing - a[1].firing)
    .map(([k, v]) => `| ${k} | ${v.firing} | ${per(v.firing)} | ${v.resolved} |`);
  return [
    `Healthy plant: ${opts.stations} stations, ${days.toFixed(2)} days counted (after the first hour).`,
    '',
    '| alert (severity) | notifications with a firing alert | per day per 1,000 stations | resolved-only notifications |',
    '|---|---:|---:|---:|',
    ...rows,
    `| **all** | **${firing}** | **${per(firing)}** | ${counted.length - firing} |`,
    '',
  ].join('\n');
}

function matchesTarget(n: Notification, c: FaultCase): boolean {
  return n.firing.some(
    (a) => isExpected(c, a.alertname ?? '') && Object.entries(c.target).every(([k, v]) => (a[k] ?? '') === v),
  );
}

/** What a fault run measured, for the results file. */
interface FaultOutcome {
  readonly name: string;
  readonly delayMin: number | undefined;
  /** Trials the detector saw from the fault to the notification (yield: units; retry: output records). */
  readonly trials: number | undefined;
  readonly bound: number | undefined;
}

/** Minutes after its latest output before a unit's yields are decided (units.cusum.settle). */
const SETTLE_MIN = 20;

/**
 * The trials a Bernoulli chart saw in `delayMin`: for yield, the units decided (the line's pace
 * after the settle delay); for retries, the station's output records at the shifted retry ratio
 * (30 units an hour each tested 1 / (1 - p1) times on average). Polling, scraping, evaluation and
 * the notification's group_wait stay in: a few minutes.
 */
function trialsIn(c: FaultCase, delayMin: number): number | undefined {
  if (!c.bernoulli) return undefined;
  const retry = c.expected.some((e) => e.includes('Retry'));
  const minutes = retry ? delayMin : Math.max(0, delayMin - SETTLE_MIN);
  const perHour = retry ? UNITS_PER_HOUR / (1 - c.bernoulli.p1) : UNITS_PER_HOUR;
  return (minutes / 60) * perHour;
}

function faultRow(c: FaultCase, res: RunResult, faultMs: number): { text: string; outcome: FaultOutcome } {
  const after = res.notifications.filter((n) => n.at >= faultMs && n.firing.length > 0);
  // The same alert on the same target before the fault: chance alarms of the in-control process.
  const chance = res.notifications.filter(
    (n) => n.at >= START + SETTLE_MS && n.at < faultMs && matchesTarget(n, c),
  ).length;
  const first = after.find((n) => matchesTarget(n, c));
  const delayMin = first ? (first.at - faultMs) / MIN : undefined;
  // Alerts firing before the fault: their notifications after it are not "with" the fault.
  const before = new Set(
    res.spans
      .filter((s) => s.firedAt < faultMs && (s.resolvedAt ?? Number.POSITIVE_INFINITY) > faultMs)
      .map((s) => labelKey(s.labels)),
  );
  // Other alerts that started after the fault: on the fault's target (its line or station), or elsewhere.
  const onTarget = new Set<string>();
  const elsewhere = new Set<string>();
  for (const n of after)
    for (const a of n.firing) {
      if (before.has(labelKey(a))) continue;
      const same = Object.entries(c.target).every(([k, v]) => (a[k] ?? '') === v);
      if (isExpected(c, a.alertname ?? '') && same) continue;
      (same ? onTarget : elsewhere).add(`${a.alertname} (${a.severity})`);
    }
  const others = [
    onTarget.size > 0 ? `on its target: ${[...onTarget].sort().join(', ')}` : '',
    elsewhere.size > 0 ? `elsewhere: ${[...elsewhere].sort().join(', ')}` : '',
  ].filter((x) => x !== '');
  const bound = c.bernoulli ? detectionBoundUnits({ ...c.bernoulli, a: A }) : undefined;
  const boundText = bound === undefined ? '' : `${bound.toFixed(0)} trials`;
  const trials = delayMin === undefined ? undefined : trialsIn(c, delayMin);
  const delayText =
    delayMin === undefined
      ? `none in ${(c.afterMs / HOUR).toFixed(0)} h`
      : `${delayMin.toFixed(1)} min${bound === undefined || trials === undefined ? '' : ` (${trials.toFixed(0)} trials, ${(trials / bound).toFixed(1)}× bound)`}`;
  return {
    text: `| ${c.name} | ${c.what} | ${chance} | ${first ? kindOf(first) : c.expected.join(' / ')} | ${delayText} | ${boundText} | ${others.join('; ') || 'none'} |`,
    outcome: { name: c.name, delayMin, trials, bound },
  };
}

/** The bench's options, from the command line. */
interface Options {
  readonly stations: number;
  readonly days: number;
  readonly pollMs: number;
  readonly rereadMs: number;
  readonly seeds: readonly number[];
  readonly plant: string;
  readonly warmMs: number;
  readonly which: string;
  readonly maxAfterMs: number;
  readonly keepFiles: boolean;
  readonly cacheDir: string | undefined;
  readonly jobs: number;
  readonly faultStations: number;
  /** Evaluate only the runs whose recordings are cached (those still recording elsewhere wait). */
  readonly onlyCached: boolean;
  /** Seeds of the healthy runs (default: every seed). */
  readonly healthySeeds: readonly number[];
  /** Nominal units entering a line an hour in the fault runs. */
  readonly faultUnitsPerHour: number;
}

function options(): Options {
  // --seed=N for one seed; --seeds for several (the targets are judged by the median of 3).
  const seeds = arg('seeds', arg('seed', '7,8,9'))
    .split(',')
    .map((x) => Number(x.trim()));
  const plant = arg('plant', 'realistic');
  return {
    stations: Number(arg('stations', '200')),
    days: Number(arg('days', '7')),
    pollMs: Number(arg('poll', '1')) * MIN,
    // A week, not the exporter's hour: the recording is the same (record.ts, rereadMs) and a
    // 200-station week records in a fraction of the time. --reread-hours=1 for the default.
    rereadMs: Number(arg('reread-hours', '168')) * HOUR,
    seeds,
    // The realistic plant (docs/simulator.md) by default: alert rates measured on a textbook plant
    // say little about a real line's; --plant=textbook compares.
    plant,
    warmMs: Number(arg('warm-hours', String(FAULT_HOURS))) * HOUR,
    which: arg('faults', 'all'),
    maxAfterMs: Number(arg('max-after-hours', '24')) * HOUR,
    keepFiles: process.argv.includes('--keep'),
    cacheDir: process.argv.includes('--no-cache')
      ? undefined
      : arg('cache-dir', path.join(tmpdir(), 'station-exporter-bench-pager')),
    jobs: Number(arg('jobs', '3')),
    faultStations: Number(arg('fault-stations', '20')),
    onlyCached: process.argv.includes('--only-cached'),
    healthySeeds: arg('healthy-seeds', seeds.join(','))
      .split(',')
      .map((x) => Number(x.trim())),
    // The delay targets are stated at 30 units an hour a line; the realistic plant's stops and
    // empty slots make fewer out of a nominal 30 (plant.ts).
    faultUnitsPerHour: Number(
      arg(
        'fault-units-per-hour',
        String(plant === 'realistic' ? REALISTIC_FAULT_UNITS_PER_HOUR : UNITS_PER_HOUR),
      ),
    ),
  };
}

/** The spec of a recording, in the key order the cache hashes (record-cache.ts). */
function specOf(
  s: Shipped,
  o: Options,
  run: {
    readonly seed: number;
    readonly scale: PlantScale;
    readonly endMs: number;
    readonly events?: FaultCase['events'];
    readonly faults?: readonly TimedFault[];
  },
): RunPlan['spec'] {
  return {
    seed: run.seed,
    scale: run.scale,
    plant: o.plant,
    names: NAMES,
    startMs: START,
    endMs: run.endMs,
    scrapeMs: MIN,
    pollMs: o.pollMs,
    rereadMs: o.rereadMs,
    process: { drift: false, events: [...(run.events ?? [])] },
    faults: run.faults,
    keep: s.keep,
  };
}

/** The fault cases of `seed`'s plant chosen by --faults, with the line's own final yield. */
function casesOf(o: Options, seed: number): { cases: FaultCase[]; all: FaultCase[]; faultMs: number } {
  const faultScale = plantScale(o.faultStations, o.faultUnitsPerHour);
  const model = plantModel(seed, faultScale);
  const probe = createSimulator({ seed, scale: faultScale, now: () => START, ...plantOption(o.plant) });
  const line0 = model.plant.stations
    .filter((st) => st.lineId === model.plant.sites[0]?.lines[0]?.id)
    .map((st) => st.id);
  const y0 = probe.summaryOf(line0, new Date(START - DAY), new Date(START)).final_yield;
  const faultMs = START + o.warmMs;
  const all = faultCases(model, { faultMs, chartName: 'board_temp', lineFinalYield: y0 });
  const cases =
    o.which === 'none'
      ? []
      : all
          .filter((c) => o.which === 'all' || o.which.split(',').includes(c.name))
          .map((c) => ({ ...c, afterMs: Math.min(c.afterMs, o.maxAfterMs) }));
  return { cases, all, faultMs };
}

/**
 * Every run: the healthy plant of each seed, then the faults case by case (in --faults order),
 * each case for every seed before the next, so that a run cut short has whole cases.
 */
function plansOf(s: Shipped, o: Options): RunPlan[] {
  const plans: RunPlan[] = [];
  for (const seed of o.healthySeeds)
    if (o.days > 0)
      plans.push({
        seed,
        name: 'healthy',
        spec: specOf(s, o, { seed, scale: plantScale(o.stations), endMs: START + o.days * DAY }),
      });
  const faultPlans: Array<RunPlan & { readonly order: number }> = [];
  for (const seed of o.seeds) {
    const { cases, faultMs } = casesOf(o, seed);
    for (const c of cases)
      faultPlans.push({
        order: o.which === 'all' ? cases.indexOf(c) : o.which.split(',').indexOf(c.name),
        seed,
        name: c.name,
        fault: c,
        faultMs,
        spec: specOf(s, o, {
          seed,
          scale: plantScale(o.faultStations, o.faultUnitsPerHour),
          endMs: faultMs + c.afterMs,
          events: c.events,
          faults: c.faults,
        }),
      });
  }
  faultPlans.sort((a, b) => a.order - b.order);
  return [...plans, ...faultPlans];
}

/** What one seed measured. */
interface SeedResult {
  readonly seed: number;
  healthy?: HealthyCounts;
  readonly outcomes: FaultOutcome[];
  readonly faultRows: string[];
}

function limitsTable(all: readonly FaultCase[]): string[] {
  return [
    'Information limits of the yield and retry faults (A = 2·10⁶, 30 units/h):',
    '',
    '| fault | p0 -> p1 (failure or retest probability) | KL (nats) | ln(A)/KL | time at 30 units/h |',
    '|---|---|---:|---:|---:|',
    ...all.flatMap((c) => {
      if (!c.bernoulli) return [];
      const kl = bernoulliKl(c.bernoulli.p1, c.bernoulli.p0);
      const units = detectionBoundUnits({ ...c.bernoulli, a: A });
      return [
        `| ${c.name} | ${c.bernoulli.p0.toFixed(3)} -> ${c.bernoulli.p1.toFixed(3)} | ${kl.toFixed(4)} | ${units.toFixed(0)} units | ${(units / UNITS_PER_HOUR).toFixed(1)} h |`,
      ];
    }),
    '',
  ];
}

async function main(): Promise<void> {
  const started = performance.now();
  const o = options();
  const scale = plantScale(o.stations);
  const plantStations = scale.sites * scale.linesPerSite * scale.stationsPerLine;
  const faultScale = plantScale(o.faultStations);
  const faultStations = faultScale.sites * faultScale.linesPerSite * faultScale.stationsPerLine;
  const s = shipped();
  const out: string[] = [
    `## bench:pager (${new Date().toISOString().slice(0, 10)})`,
    '',
    `Rules: ${s.alerts.length} alerting rules of ${[...new Set(s.alerts.map((a) => a.file))].join(', ')}; route: prometheus/alertmanager.example.yml. ` +
      `Plant: ${plantStations} stations (${scale.sites * scale.linesPerSite} lines of 10), ${UNITS_PER_HOUR} units/h per line (faults: ${o.faultUnitsPerHour}, nominal), control charts on ${NAMES.length} names, seeds ${o.seeds.join(', ')}, drift off; ${o.plant} plant; ` +
      `every collector polled every ${o.pollMs / MIN} min (re-read sweep ${o.rereadMs / HOUR} h), scraped and evaluated every minute.`,
    '',
  ];
  const plans = plansOf(s, o);
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-pager-runs-'));
  const timings: string[] = [];
  const bySeed = new Map<number, SeedResult>(
    [...new Set([...o.seeds, ...o.healthySeeds])].map((seed) => [
      seed,
      { seed, outcomes: [], faultRows: [] },
    ]),
  );
  try {
    const { recordings, done } = recordAll(plans, {
      jobs: o.jobs,
      cacheDir: o.cacheDir,
      dir,
      onlyCached: o.onlyCached,
    });
    // A failed recording ends the run (its promise never settles otherwise).
    const failed = done.then(
      () => new Promise<never>(() => {}),
      (e: unknown) => Promise.reject(e),
    );
    // The faults first: they record quickly and are evaluated while the healthy weeks record.
    const order = [
      ...plans.filter((p) => p.fault !== undefined),
      ...plans.filter((p) => p.fault === undefined),
    ];
    for (const plan of order) {
      const pending = recordings.get(plan);
      if (pending === undefined) continue;
      const rec = await Promise.race([pending, failed]);
      const res = await evaluate(s, { plan, recorded: rec, keepFiles: o.keepFiles });
      timings.push(
        `| ${plan.seed} | ${plan.name} | ${rec.recordSeconds === 0 ? 'cached' : `${rec.recordSeconds.toFixed(0)} s (CPU ${rec.cpuSeconds.toFixed(0)} s)`} | ${res.evaluateSeconds.toFixed(0)} s |`,
      );
      const seedResult = bySeed.get(plan.seed)!;
      if (plan.fault === undefined) {
        const endMs = plan.spec.endMs;
        for (const n of res.notifications.filter((x) => x.at >= START + SETTLE_MS && x.firing.length > 0))
          progress(`  seed ${plan.seed}: ${describe(n)}`);
        seedResult.healthy = healthyCounts(res, { stations: plantStations, endMs });
        out.push(`### Seed ${plan.seed}`, '', healthyTable(res, { stations: plantStations, endMs }));
      } else {
        const row = faultRow(plan.fault, res, plan.faultMs ?? START);
        seedResult.faultRows.push(row.text);
        seedResult.outcomes.push(row.outcome);
        progress(`seed ${plan.seed} ${row.text}`);
      }
    }
    await done;
  } finally {
    if (!o.keepFiles) rmSync(dir, { recursive: true, force: true });
  }
  const first = o.seeds[0];
  if (o.which !== 'none' && first !== undefined) out.push(...limitsTable(casesOf(o, first).all));
  for (const r of bySeed.values())
    if (r.faultRows.length > 0)
      out.push(
        `Faults, seed ${r.seed}, one per run on a plant of ${faultStations} stations, each ${o.warmMs / HOUR} h after the start; bound: ln(2·10⁶)/KL(p1‖p0) in the trials the chart sees (target: within 2×).`,
        '',
        '| fault | what | its alert on the target before the fault (chance) | first notification | delay | information limit | other alerts notified after the fault |',
        '|---|---|---:|---|---|---|---|',
        ...r.faultRows,
        '',
      );
  out.push(
    'Run times (wall; the recordings ran side by side, `--jobs`):',
    '',
    '| seed | run | recording | backfill and queries |',
    '|---:|---|---|---|',
    ...timings,
    '',
    `Total run time: ${((performance.now() - started) / 60_000).toFixed(1)} min.`,
  );
  process.stdout.write(`${out.join('\n')}\n`);
  if (process.argv.includes('--no-results')) return;
  const seeds = [...bySeed.values()];
  writeResults(
    {
      name: `pager-${o.plant}`,
      title: `Every shipped alert on the ${o.plant} plant`,
      command: `npm run bench:pager -- ${process.argv.slice(2).join(' ')}`.trim(),
      setup:
        `Healthy: ${plantStations} stations × ${o.days} days (${UNITS_PER_HOUR} units/h per line, nominal), seeds ${o.healthySeeds.join(', ')}; faults: one per run on ${faultStations} stations ` +
        `(${o.faultUnitsPerHour} units/h per line, nominal: the targets' 30 an hour into a running line), ` +
        `${o.warmMs / HOUR} h after the exporter's start; seeds ${o.seeds.join(', ')} (each figure the median over them); ${o.plant} plant; real Prometheus 2.42 (promtool backfill) and the shipped Alertmanager route.`,
      rows: resultRows(seeds, { stations: plantStations, days: o.days }),
      curves: faultCurves(seeds),
      notes: [
        'Notifications: those with a firing alert, after the first hour, per day per 1,000 stations; paging: every receiver but quality-tickets.',
        'Delays: from the fault to the first notification of the alert that exists for it; a seed whose alert did not notify within the run counts as longer than any that did. Trials: what the Bernoulli chart saw in that time (yield: units decided, the 20-minute settle taken off; retry: output records at the shifted retry ratio); polling, scraping, evaluation and group_wait stay in.',
        `Information limit: ln(2·10^6)/KL(p1‖p0) trials, Lorden's first-order term at the charts' in-control run length (asymptotic, not a floor). The fault runs start ${o.warmMs / HOUR} h after the exporter (while the line runs, between a shift change and a meal break), whose own-level charts then judge against the target mostly (the replayed 24 h is all inside the 1-day lag): the own-level behaviour is measured by bench:yield.`,
        "Curves: the median of the seeds' trials where every seed notified within the run, beside the information limit; a fault not found within its run (a drop of 2 points, a retry ratio ×1.5 or ×2: limits of a day or more) has no measured point.",
      ],
    },
    { startedAt: Date.now() - (performance.now() - started) },
  );
}

interface HealthyCounts {
  readonly perDay: number;
  readonly paging: number;
  readonly byAlert: ReadonlyMap<string, number>;
}

function healthyCounts(
  res: RunResult,
  opts: { readonly stations: number; readonly endMs: number },
): HealthyCounts {
  const days = (opts.endMs - START - SETTLE_MS) / DAY;
  const per = (n: number) => n / days / (opts.stations / 1000);
  const firing = res.notifications.filter((n) => n.at >= START + SETTLE_MS && n.firing.length > 0);
  const byAlert = new Map<string, number>();
  for (const n of firing) byAlert.set(kindOf(n), (byAlert.get(kindOf(n)) ?? 0) + 1);
  return {
    perDay: per(firing.length),
    paging: per(firing.filter((n) => n.receiver !== 'quality-tickets').length),
    byAlert: new Map([...byAlert].map(([k, v]) => [k, per(v)])),
  };
}

/** The median of `values` where undefined (not found within the run) ranks above every number. */
function medianOrMissing(values: ReadonlyArray<number | undefined>): number | undefined {
  const m = median(values.map((v) => v ?? Number.POSITIVE_INFINITY));
  return Number.isFinite(m) ? m : undefined;
}

/** A figure of every seed as a row: the median and the seeds' values. */
function medianRow(
  values: ReadonlyArray<number | undefined>,
  row: Omit<ResultRow, 'value' | 'runs'>,
): ResultRow {
  const known = values.filter((v): v is number => v !== undefined);
  return {
    ...row,
    value: medianOrMissing(values),
    ...(known.length === values.length && values.length > 1 ? { runs: known } : {}),
  };
}

/** What the healthy runs were, and whether they are the plant the targets are stated on. */
interface HealthyPlan {
  readonly stations: number;
  readonly days: number;
}

function healthyRows(seeds: readonly SeedResult[], plan: HealthyPlan): ResultRow[] {
  const hs = seeds.flatMap((r) => (r.healthy ? [r.healthy] : []));
  if (hs.length === 0) return [];
  const unit = 'per day per 1,000 stations';
  const ran = `${plan.stations} stations × ${plan.days} days, seeds ${seeds
    .filter((r) => r.healthy)
    .map((r) => r.seed)
    .join(', ')}`;
  // The targets are stated on at least 200 stations × 7 days, 3 seeds: a shorter run is reported, not judged.
  const judged = plan.stations >= 200 && plan.days >= 7 && hs.length >= 3;
  const judge = (bound: number) =>
    judged
      ? { target: { op: '<=' as const, bound }, detail: ran }
      : {
          detail: `${ran}; not judged: the target (≤ ${bound}) is stated on ≥ 200 stations × 7 days, 3 seeds`,
        };
  const kinds = [...new Set(hs.flatMap((h) => [...h.byAlert.keys()]))].sort();
  return [
    medianRow(
      hs.map((h) => h.perDay),
      {
        measure: 'Healthy plant: notifications a day per 1,000 stations',
        unit,
        ...judge(5),
      },
    ),
    medianRow(
      hs.map((h) => h.paging),
      {
        measure: 'Healthy plant: paging notifications a day per 1,000 stations',
        unit,
        ...judge(2),
      },
    ),
    ...kinds.map((k) =>
      medianRow(
        hs.map((h) => h.byAlert.get(k) ?? 0),
        { measure: `Healthy plant: ${k}`, unit },
      ),
    ),
  ];
}

function resultRows(seeds: readonly SeedResult[], plan: HealthyPlan): ResultRow[] {
  const names = [...new Set(seeds.flatMap((r) => r.outcomes.map((o) => o.name)))];
  const faultRows = names.map((name) => {
    // Seeds whose run of this fault was not made (--only-cached) are left out, not counted as misses.
    const per = seeds.flatMap((r) => r.outcomes.filter((o) => o.name === name));
    const silent = name.startsWith('silent station');
    const trials = medianOrMissing(per.map((o) => o.trials));
    const bound = per.find((o) => o.bound !== undefined)?.bound;
    const ran = `seeds ${seeds
      .filter((r) => r.outcomes.some((o) => o.name === name))
      .map((r) => r.seed)
      .join(', ')}`;
    const detail =
      bound === undefined
        ? ran
        : `${ran}; ${trials === undefined ? 'not found in the run' : `${trials.toFixed(0)} trials`}, information limit ${bound.toFixed(0)}${trials === undefined ? '' : ` (${(trials / bound).toFixed(2)}×)`}`;
    return medianRow(
      per.map((o) => o.delayMin),
      {
        measure: `Fault ${name}: delay to the notification`,
        unit: 'min',
        ...(silent ? { target: { op: '<=' as const, bound: name.endsWith('pair') ? 45 : 35 } } : {}),
        ...(/0\.95 -> 0\.80|0\.10 -> 0\.20/.test(name) && trials !== undefined && bound !== undefined
          ? { detail: `${detail}; target: within 2× the limit` }
          : detail === undefined
            ? {}
            : { detail }),
      },
    );
  });
  return [...healthyRows(seeds, plan), ...faultRows, ...limitRatioRows(seeds)];
}

/** The two faults the targets bound by the information limit: trials over the limit, target ≤ 2. */
function limitRatioRows(seeds: readonly SeedResult[]): ResultRow[] {
  return ['yield 0.95 -> 0.80', 'retry 0.10 -> 0.20'].flatMap((name) => {
    const per = seeds.flatMap((r) => r.outcomes.filter((o) => o.name === name));
    if (per.length === 0) return [];
    return [
      medianRow(
        per.map((o) => (o.trials === undefined || o.bound === undefined ? undefined : o.trials / o.bound)),
        {
          measure: `Fault ${name}: trials to the notification over the information limit`,
          unit: '× the limit',
          target: { op: '<=', bound: 2 },
        },
      ),
    ];
  });
}

function faultCurves(seeds: readonly SeedResult[]): Curve[] {
  const outcomes = seeds.flatMap((r) => r.outcomes);
  const series = (prefix: string, x: (name: string) => number) => {
    const names = [...new Set(outcomes.filter((o) => o.name.startsWith(prefix)).map((o) => o.name))];
    const med = names.flatMap((name) => {
      const per = outcomes.filter((o) => o.name === name);
      const trials = medianOrMissing(per.map((o) => o.trials));
      const bound = per.find((o) => o.bound !== undefined)?.bound;
      return bound === undefined ? [] : [{ x: x(name), trials, bound }];
    });
    return [
      {
        name: `delay (trials, median of ${seeds.length} seeds)`,
        points: med.flatMap((p) => (p.trials === undefined ? [] : [[p.x, p.trials] as const])),
      },
      { name: 'information limit', points: med.map((p) => [p.x, p.bound] as const), dashed: true },
    ];
  };
  const num = (name: string) => Number(/[\d.]+/.exec(name.replace(/^[^\d]*/, ''))?.[0] ?? Number.NaN);
  const curves: Curve[] = [
    {
      id: 'yield-delay',
      title: 'Yield drop: trials to the notification vs drop (points)',
      x: { label: 'drop of final yield (points)' },
      y: { label: 'units', scale: 'log' },
      series: series('yield -', num),
    },
    {
      id: 'retry-delay',
      title: 'Retry ratio rise: trials to the notification vs factor',
      x: { label: 'retry ratio × factor' },
      y: { label: 'output records', scale: 'log' },
      series: series('retry ×', num),
    },
  ];
  // A curve with no measured point (its faults not run) is left out rather than drawn empty.
  return curves.filter((c) => c.series.some((x) => x.points.length > 0 && !x.dashed));
}

await main();
