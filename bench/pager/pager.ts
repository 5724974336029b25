/**
 * `npm run bench:pager`: every shipped alert on a healthy plant, and the faults they exist for.
 *
 * For each run (the healthy plant, then one run per fault): the exporter polls the simulator on a
 * simulated clock and its expositions are recorded at every scrape (record.ts); promtool backfills
 * them into a real Prometheus 2.42, which evaluates each shipped alert expression (recording rules
 * inlined) as a range query at its group's interval (prometheus.ts, rules.ts); `for` and
 * `keep_firing_for` (alert-state.ts) and the shipped Alertmanager route, grouping, inhibition
 * and repeat (dispatch.ts) turn those into notifications. The rule files are the ones
 * prometheus/prometheus.example.yml loads and the route is prometheus/alertmanager.example.yml,
 * both read at run time.
 *
 *   npx tsx bench/pager/pager.ts [--stations=200] [--days=7] [--poll=1] [--faults=all|none|NAME,...]
 *                                [--warm-hours=3] [--max-after-hours=24] [--seed=7] [--keep]
 *                                [--fault-stations=20] [--cache-dir=DIR | --no-cache]
 *                                [--reread-hours=168]
 *
 * Recordings are kept in a cache (by default under the system's temp directory), keyed by what
 * they depend on: the run's spec, the selectors of the rules, and the source of the exporter and
 * simulator (record-cache.ts). A second run, or a run after a change of thresholds, `for` or
 * the route, backfills the cached file instead of recording it again.
 *
 * Progress goes to stderr, the report (Markdown) to stdout.
 */
import { copyFileSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createSimulator } from '../../src/simulator/index.ts';
import type { PlantScale } from '../../src/simulator/types.ts';
import { arg } from '../shared/args.ts';
import { type ResultRow, writeResults } from '../shared/results.ts';
import type { Curve } from '../shared/svg.ts';
import { type FiringSpan, firingSpans, labelKey } from './alert-state.ts';
import { AlertmanagerModel, type Notification } from './dispatch.ts';
import { bernoulliKl, detectionBoundUnits } from './information-limit.ts';
import { plantScale, START, UNITS_PER_HOUR } from './plant.ts';
import { BackfilledPrometheus } from './prometheus.ts';
import { type Keep, plantOption, type RecordSpec, record, type TimedFault } from './record.ts';
import { cachedRecording } from './record-cache.ts';
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
  readonly wallSeconds: number;
  readonly recordSeconds: number;
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

async function runOnce(
  s: Shipped,
  run: {
    readonly name: string;
    readonly scale: PlantScale;
    readonly plant: string;
    readonly seed: number;
    readonly endMs: number;
    readonly pollMs: number;
    readonly rereadMs: number;
    readonly events?: FaultCase['events'];
    readonly faults?: readonly TimedFault[];
    readonly keepFiles: boolean;
    readonly cacheDir?: string;
  },
): Promise<RunResult> {
  const started = performance.now();
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-pager-'));
  const file = path.join(dir, 'scrapes.om');
  progress(`${run.name}: recording ${((run.endMs - START) / HOUR).toFixed(0)} simulated hours`);
  const spec: RecordSpec = {
    seed: run.seed,
    scale: run.scale,
    plant: run.plant,
    names: NAMES,
    startMs: START,
    endMs: run.endMs,
    scrapeMs: MIN,
    pollMs: run.pollMs,
    rereadMs: run.rereadMs,
    process: { drift: false, events: [...(run.events ?? [])] },
    faults: run.faults,
    keep: s.keep,
    out: file,
    progress,
  };
  const cached = run.cacheDir ? cachedRecording(run.cacheDir, spec) : undefined;
  let recordSeconds = 0;
  if (cached?.hit) {
    copyFileSync(cached.file, file);
    progress(`${run.name}: recording from the cache (${cached.file}); backfilling`);
  } else {
    const rec = await record(spec);
    recordSeconds = rec.wallSeconds;
    if (cached) {
      // Whole or not at all: an interrupted copy must not be taken for a recording.
      copyFileSync(file, `${cached.file}.part`);
      renameSync(`${cached.file}.part`, cached.file);
    }
    progress(
      `${run.name}: ${rec.scrapes} scrapes, ${(rec.bytes / 2 ** 20).toFixed(0)} MiB in ${rec.wallSeconds.toFixed(0)} s; backfilling`,
    );
  }
  const prom = await BackfilledPrometheus.start(file, dir);
  const spans: FiringSpan[] = [];
  try {
    for (const alert of s.alerts) {
      const startMs = Math.ceil(START / alert.intervalMs) * alert.intervalMs;
      const evalTimes: number[] = [];
      for (let t = startMs; t <= run.endMs; t += alert.intervalMs) evalTimes.push(t);
      const matrix = await prom.range(alert.expr, { startMs, endMs: run.endMs, stepMs: alert.intervalMs });
      spans.push(...firingSpans(alert, matrix, evalTimes));
    }
  } finally {
    await prom.stop();
    if (!run.keepFiles) rmSync(dir, { recursive: true, force: true });
    else progress(`kept ${dir}`);
  }
  const notifications = new AlertmanagerModel(s.am, spans).run(run.endMs);
  return {
    notifications,
    spans,
    wallSeconds: (performance.now() - started) / 1000,
    recordSeconds,
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

async function main(): Promise<void> {
  const started = performance.now();
  const stations = Number(arg('stations', '200'));
  const days = Number(arg('days', '7'));
  const pollMs = Number(arg('poll', '1')) * MIN;
  // A week, not the exporter's hour: the recording is the same (record.ts, rereadMs) and a
  // 200-station week records in a fraction of the time. --reread-hours=1 for the default.
  const rereadMs = Number(arg('reread-hours', '168')) * HOUR;
  const seed = Number(arg('seed', '7'));
  // The realistic plant (docs/simulator.md) by default: alert rates measured on a textbook plant
  // say little about a real line's; --plant=textbook compares.
  const plant = arg('plant', 'realistic');
  const warmMs = Number(arg('warm-hours', '3')) * HOUR;
  const which = arg('faults', 'all');
  const maxAfterMs = Number(arg('max-after-hours', '24')) * HOUR;
  const keepFiles = process.argv.includes('--keep');
  const cacheDir = process.argv.includes('--no-cache')
    ? undefined
    : arg('cache-dir', path.join(tmpdir(), 'station-exporter-bench-pager'));
  const scale = plantScale(stations);
  const plantStations = scale.sites * scale.linesPerSite * scale.stationsPerLine;
  // The faults' delays do not depend on the plant's size: a smaller plant records them faster.
  const faultScale = plantScale(Number(arg('fault-stations', '20')));
  const faultStations = faultScale.sites * faultScale.linesPerSite * faultScale.stationsPerLine;
  const s = shipped();
  const out: string[] = [
    `## bench:pager (${new Date().toISOString().slice(0, 10)})`,
    '',
    `Rules: ${s.alerts.length} alerting rules of ${[...new Set(s.alerts.map((a) => a.file))].join(', ')}; route: prometheus/alertmanager.example.yml. ` +
      `Plant: ${plantStations} stations (${scale.sites * scale.linesPerSite} lines of 10), ${UNITS_PER_HOUR} units/h per line, control charts on ${NAMES.length} names, seed ${seed}, drift off; ` +
      `every collector polled every ${pollMs / MIN} min (re-read sweep ${rereadMs / HOUR} h), scraped and evaluated every minute.`,
    '',
  ];
  const outcomes: FaultOutcome[] = [];
  let healthy: HealthyCounts | undefined;
  if (days > 0) {
    const endMs = START + days * DAY;
    const res = await runOnce(s, {
      name: 'healthy',
      scale,
      plant,
      seed,
      endMs,
      pollMs,
      rereadMs,
      keepFiles,
      cacheDir,
    });
    for (const n of res.notifications.filter((x) => x.at >= START + SETTLE_MS && x.firing.length > 0))
      progress(`  ${describe(n)}`);
    healthy = healthyCounts(res, { stations: plantStations, endMs });
    out.push(
      healthyTable(res, { stations: plantStations, endMs }),
      `Healthy run: ${res.wallSeconds.toFixed(0)} s (recording ${res.recordSeconds.toFixed(0)} s).`,
      '',
    );
  }
  if (which !== 'none') {
    const model = plantModel(seed, faultScale);
    const probe = createSimulator({ seed, scale: faultScale, now: () => START, ...plantOption(plant) });
    const line0 = model.plant.stations
      .filter((st) => st.lineId === model.plant.sites[0]?.lines[0]?.id)
      .map((st) => st.id);
    const y0 = probe.summaryOf(line0, new Date(START - DAY), new Date(START)).final_yield;
    const faultMs = START + warmMs;
    const cases = faultCases(model, { faultMs, chartName: 'board_temp', lineFinalYield: y0 })
      .filter((c) => which === 'all' || which.split(',').includes(c.name))
      .map((c) => ({ ...c, afterMs: Math.min(c.afterMs, maxAfterMs) }));
    const all = faultCases(model, { faultMs, chartName: 'board_temp', lineFinalYield: y0 });
    out.push(
      'Information limits of the yield and retry faults (A = 10⁴, 30 units/h):',
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
    );
    const rows: string[] = [];
    for (const c of cases) {
      const res = await runOnce(s, {
        name: c.name,
        scale: faultScale,
        plant,
        seed,
        endMs: faultMs + c.afterMs,
        pollMs,
        rereadMs,
        events: c.events,
        faults: c.faults,
        keepFiles,
        cacheDir,
      });
      const row = faultRow(c, res, faultMs);
      rows.push(row.text);
      outcomes.push(row.outcome);
      progress(row.text);
    }
    out.push(
      `Faults, one per run on a plant of ${faultStations} stations, each ${warmMs / HOUR} h after the start; bound: ln(2·10⁶)/KL(p1‖p0) in the trials the chart sees (target: within 2×).`,
      '',
      '| fault | what | its alert on the target before the fault (chance) | first notification | delay | information limit | other alerts notified after the fault |',
      '|---|---|---:|---|---|---|---|',
      ...rows,
      '',
    );
  }
  out.push(`Total run time: ${((performance.now() - started) / 60_000).toFixed(1)} min.`);
  process.stdout.write(`${out.join('\n')}\n`);
  if (!process.argv.includes('--no-results'))
    writeResults(
      {
        name: `pager-${plant}`,
        title: `Every shipped alert on the ${plant} plant`,
        command: `npm run bench:pager -- ${process.argv.slice(2).join(' ')}`.trim(),
        setup:
          `Healthy: ${plantStations} stations × ${days} days, seed ${seed}; faults: one per run on ${faultStations} stations, ` +
          `${warmMs / HOUR} h after the exporter's start; ${plant} plant; real Prometheus 2.42 (promtool backfill) and the shipped Alertmanager route.`,
        rows: resultRows(healthy, outcomes),
        curves: faultCurves(outcomes),
        notes: [
          'Notifications: those with a firing alert, after the first hour, per day per 1,000 stations; paging: every receiver but quality-tickets.',
          'Delays: from the fault to the first notification of the alert that exists for it. Trials: what the Bernoulli chart saw in that time (yield: units decided, the 20-minute settle taken off; retry: output records at the shifted retry ratio); polling, scraping, evaluation and group_wait stay in.',
          "Information limit: ln(2·10^6)/KL(p1‖p0) trials, Lorden's first-order term at the charts' in-control run length (asymptotic, not a floor). The fault runs start 3 h after the exporter, whose own-level charts then judge against the target mostly (the replayed 24 h is all inside the 1-day lag): the own-level behaviour is measured by bench:yield.",
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

function resultRows(healthy: HealthyCounts | undefined, outcomes: readonly FaultOutcome[]): ResultRow[] {
  const rows: ResultRow[] = [];
  if (healthy) {
    rows.push(
      {
        measure: 'Healthy plant: notifications a day per 1,000 stations',
        value: healthy.perDay,
        unit: 'per day per 1,000 stations',
        target: { op: '<=', bound: 5 },
      },
      {
        measure: 'Healthy plant: paging notifications a day per 1,000 stations',
        value: healthy.paging,
        unit: 'per day per 1,000 stations',
        target: { op: '<=', bound: 2 },
      },
      ...[...healthy.byAlert].map(([k, v]) => ({
        measure: `Healthy plant: ${k}`,
        value: v,
        unit: 'per day per 1,000 stations',
      })),
    );
  }
  for (const o of outcomes) {
    const silent = o.name.startsWith('silent station');
    rows.push({
      measure: `Fault ${o.name}: delay to the notification`,
      value: o.delayMin,
      unit: 'min',
      ...(silent ? { target: { op: '<=' as const, bound: o.name.endsWith('pair') ? 45 : 35 } } : {}),
      ...(o.trials !== undefined && o.bound !== undefined
        ? {
            detail: `${o.trials.toFixed(0)} trials, information limit ${o.bound.toFixed(0)} (${(o.trials / o.bound).toFixed(2)}×)`,
          }
        : {}),
    });
  }
  return rows;
}

function faultCurves(outcomes: readonly FaultOutcome[]): Curve[] {
  const series = (prefix: string, x: (name: string) => number) => {
    const hits = outcomes.filter((o) => o.name.startsWith(prefix) && o.bound !== undefined);
    return [
      {
        name: 'delay (trials)',
        points: hits.flatMap((o) => (o.trials === undefined ? [] : [[x(o.name), o.trials] as const])),
      },
      { name: 'information limit', points: hits.map((o) => [x(o.name), o.bound!] as const), dashed: true },
    ];
  };
  const num = (name: string) => Number(/[\d.]+/.exec(name.replace(/^[^\d]*/, ''))?.[0] ?? Number.NaN);
  return [
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
}

await main();
