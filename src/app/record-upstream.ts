/**
 * `station-exporter record`: what the exporter would read, through its own client, stored as gzip
 * NDJSON for `simulate --replay`, in the wire shape; fields it never reads (`tz`, `tags`,
 * `metadata`, `time_inserted`) are stored empty.
 */
import { constants } from 'node:os';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { type CollectorContext, standaloneDependencies } from '../collectors/collector.ts';
import { SUMMARY_FIELDS } from '../collectors/summary/families.ts';
import { summaryCollector } from '../collectors/summary/index.ts';
import { topologyCollector } from '../collectors/topology/index.ts';
import { ConfigError, loadConfig } from '../config/load.ts';
import type { Config } from '../config/schema.ts';
import { InlineToken, TokenFile } from '../config/token.ts';
import { fetchIncremental } from '../records/fetch.ts';
import type { RecordSource, Timed } from '../records/types.ts';
import { type FileDigest, ndjsonWriter } from '../simulator/ndjson.ts';
import type {
  MetricRecordWire,
  RecordedSummary,
  SiteWire,
  SummaryWire,
  UnitRecordWire,
} from '../simulator/types.ts';
import { createClient, type SharedClient, type UpstreamClient } from '../upstream/client.ts';
import { UpstreamConnection } from '../upstream/connection.ts';
import { Limiter } from '../upstream/limiter.ts';
import type { MeasurementRecord, Site, StationSummary, UnitRecord } from '../upstream/types.ts';
import { LoopYielder } from '../util/loop-yield.ts';
import { Redactor } from '../util/redact.ts';
import { StagedRecording } from './staged-recording.ts';

/** What to record. */
export interface RecordOptions {
  readonly config: Config;
  readonly fromMs: number;
  readonly toMs: number;
  readonly outDir: string;
  /** One line of progress at a time (the command writes them to stderr). */
  readonly progress?: (line: string) => void;
  /** Stops the recording: requests in flight are cancelled, `outDir` is left as it was. */
  readonly signal?: AbortSignal;
}

const iso = (ms: number) => new Date(ms).toISOString();

function siteWire(s: Site): SiteWire {
  return {
    id: s.id,
    name: s.name,
    description: s.description,
    lines: s.lines.map((l) => ({
      id: l.id,
      name: l.name,
      description: l.description,
      elements: l.elements.map((e) =>
        e.kind === 'group'
          ? { id: e.id, name: e.name, description: e.description, stations: [...e.stations], type: 'group' }
          : { id: e.id, name: e.name, description: e.description, type: 'station' },
      ),
    })),
  };
}

/** The fields every record shares, as the upstream sends them (times in UTC, so no `tz`). */
function recordWire(r: UnitRecord | MeasurementRecord) {
  return {
    station_id: r.stationId,
    slot: r.slot,
    unit_serial: r.serial,
    time_created: iso(r.time),
    tz: null,
    mode: r.mode,
    tags: [],
  };
}

function unitWire(r: UnitRecord): UnitRecordWire {
  return {
    ...recordWire(r),
    unit_type: r.unitType,
    direction: r.direction,
    result: r.result,
    metadata: null,
  };
}

function metricWire(r: MeasurementRecord): MetricRecordWire {
  return {
    ...recordWire(r),
    name: r.name,
    value: r.raw,
    unit: r.unit,
    type: r.type,
    limit_upper: r.upper === undefined ? null : String(r.upper),
    limit_lower: r.lower === undefined ? null : String(r.lower),
  };
}

/** The summary as the upstream sent it (fields it did not send stay out). */
function summaryWire(s: StationSummary): Partial<SummaryWire> {
  const out: Partial<SummaryWire> = {};
  for (const { key, wire } of SUMMARY_FIELDS)
    if (s[key] !== undefined) out[wire as keyof SummaryWire] = s[key];
  return out;
}

/** A client that also keeps every site and summary it reads. */
function teeClient(
  client: UpstreamClient,
  sites: Map<string, Site>,
  summaries: RecordedSummary[],
): UpstreamClient {
  const keep = <T extends { records: Site[] }>(list: T) => {
    for (const s of list.records) sites.set(s.id, s);
    return list;
  };
  return {
    ...client,
    listSites: async (signal) => keep(await client.listSites(signal)),
    getSite: async (id, signal) => keep(await client.getSite(id, signal)),
    stationSummary: async (q) => {
      const summary = await client.stationSummary(q);
      summaries.push({
        station_ids: [...q.stationIds],
        from: iso(q.from?.getTime() ?? 0),
        to: iso(q.to?.getTime() ?? 0),
        summary: summaryWire(summary),
      });
      return summary;
    },
  };
}

/** The window recorded, its stations, and where each endpoint's progress goes. */
type RecordWindow = RecordOptions & {
  readonly stationIds: readonly string[];
  readonly progress: (line: string) => void;
};

/** Fetches one record endpoint for every station over the window into a gzip NDJSON file. */
async function recordList<R extends Timed>(
  what: string,
  source: RecordSource<R>,
  opts: RecordWindow & {
    readonly file: string;
    readonly wire: (r: R) => unknown;
    readonly key: (r: R) => string;
  },
): Promise<{ records: number; failures: number; digest: FileDigest }> {
  const { key, progress } = opts;
  const writer = ndjsonWriter(opts.file);
  // A truncated answer is delivered and then asked again in smaller spans: keep each record once.
  const seen = new Set<string>();
  let lastReport = 0;
  const result = await fetchWindow<R>(opts.config, source, {
    ...opts,
    onRecords: async (records) => {
      for (const r of records) {
        const k = key(r);
        if (seen.has(k)) continue;
        seen.add(k);
        await writer.write(opts.wire(r));
      }
      if (seen.size - lastReport >= 10_000) {
        lastReport = seen.size;
        progress(`${what}: ${seen.size} records so far`);
      }
    },
  });
  const digest = await writer.close();
  // Stopped: the counts would describe requests cancelled on purpose.
  opts.signal?.throwIfAborted();
  progress(
    `${what}: ${seen.size} records in ${result.requests} requests${result.failures ? `, ${result.failures} failed` : ''}`,
  );
  return { records: seen.size, failures: result.failures, digest };
}

/** One endpoint's records of some stations over [fromMs, toMs), fetched once in spans. */
export function fetchWindow<R extends Timed>(
  config: Config,
  source: RecordSource<R>,
  w: Pick<RecordWindow, 'stationIds' | 'fromMs' | 'toMs' | 'signal'> & {
    readonly onRecords: (records: readonly R[]) => void | Promise<void>;
  },
) {
  return fetchIncremental<R>({
    source,
    stationIds: w.stationIds,
    watermarks: new Map(),
    now: w.toMs,
    retainFrom: w.fromMs,
    overlapMs: 0,
    maxUrlLength: config.upstream.maxUrlLength,
    maxRecords: config.measurements.maxRecordsPerRequest,
    signal: w.signal,
    onRecords: w.onRecords,
  });
}

/** The metrics endpoint as a record source: only `names`, or every name when undefined. */
export function metricsSource(
  client: UpstreamClient,
  names: string[] | undefined,
): RecordSource<MeasurementRecord> {
  return {
    urlLength: (q) => client.urlLength('metrics', { ...q, names }),
    fetch: (q) => client.metrics({ ...q, names }),
  };
}

/** The collector context of a one-off command: no scheduler, no log. */
export function commandContext(
  config: Config,
  client: UpstreamClient,
  yielder: LoopYielder,
): CollectorContext {
  return {
    config,
    client,
    logger: pino({ level: 'silent' }),
    yielder,
    redact: new Redactor().apply,
    ...standaloneDependencies(),
  };
}

/** Writes values to a gzip NDJSON file, one a line. */
async function writeAll(file: string, values: Iterable<unknown>): Promise<FileDigest> {
  const writer = ndjsonWriter(file);
  for (const v of values) await writer.write(v);
  return writer.close();
}

/** The exporter's own client with the config's auth, connection, timeout and limits (`limits study` too). */
export function recordingClient(config: Config, yielder: LoopYielder): SharedClient {
  const source = config.upstream.token;
  const tokens = source.kind === 'inline' ? new InlineToken(source.value) : new TokenFile(source.path);
  return createClient({
    baseUrl: config.upstream.baseUrl,
    token: () => tokens.get(),
    timeoutMs: config.upstream.timeoutMs,
    connection: new UpstreamConnection(config.upstream.connection),
    yielder,
    limiter: new Limiter({
      concurrency: config.upstream.concurrency,
      ratePerSecond: config.upstream.maxRequestsPerSecond,
    }),
  });
}

/**
 * Records the upstream into `outDir`. The files are written aside and moved into place once all
 * are complete, `meta.json` last; until then `outDir` keeps the recording it held.
 */
export async function recordUpstream(opts: RecordOptions) {
  const yielder = new LoopYielder();
  const client = recordingClient(opts.config, yielder);
  try {
    const staged = await StagedRecording.open(opts.outDir);
    try {
      return await recordInto(staged, client, { ...opts, yielder });
    } catch (err) {
      await staged.discard();
      throw err;
    }
  } finally {
    await client.close();
  }
}

/** Fetches everything into the staging directory, then commits it. */
async function recordInto(
  staged: StagedRecording,
  client: SharedClient,
  opts: RecordOptions & { readonly yielder: LoopYielder },
) {
  const { config, fromMs, toMs, signal } = opts;
  const progress = opts.progress ?? (() => {});
  const sites = new Map<string, Site>();
  const summaries: RecordedSummary[] = [];
  const ctx = commandContext(config, teeClient(client, sites, summaries), opts.yielder);
  const { topology } = await topologyCollector.createJob(ctx).poll({ now: new Date(toMs), signal });
  signal?.throwIfAborted();
  const stationIds = topology.stations.map((s) => s.id);
  const sitesDigest = await writeAll(staged.file('sites'), [...sites.values()].map(siteWire));
  progress(`sites: ${sites.size} sites, ${stationIds.length} stations`);

  const window: RecordWindow = { ...opts, stationIds, progress };
  const units = await recordList<UnitRecord>(
    'units',
    {
      urlLength: (q) => client.urlLength('units', { ...q, directions: ['input', 'output'] }),
      fetch: (q) => client.units({ ...q, directions: ['input', 'output'] }),
    },
    {
      ...window,
      file: staged.file('units'),
      wire: unitWire,
      key: (r) => `${r.stationId}|${r.time}|${r.serial}|${r.direction}|${r.slot}`,
    },
  );
  // The configured measurement names, or every name when measurements are off.
  const names = config.measurements.enabled ? config.measurements.names.map((n) => n.name) : undefined;
  const metrics = await recordList('metrics', metricsSource(client, names), {
    ...window,
    file: staged.file('metrics'),
    wire: metricWire,
    key: (r) => `${r.stationId}|${r.time}|${r.serial}|${r.name}|${r.slot}`,
  });

  // The summary job's own plan at `to`: exactly the requests an exporter sends at that time.
  const summaryFailures = config.summary.enabled
    ? (await summaryCollector.createJob(ctx).poll({ topology, now: new Date(toMs), signal })).failures
    : 0;
  signal?.throwIfAborted();
  const summariesDigest = await writeAll(staged.file('summaries'), summaries);
  progress(
    `summaries: ${summaries.length} answers for windows ${config.windows.map((w) => w.name).join(', ')}`,
  );

  await staged.commit({
    format: 2,
    id: staged.id,
    files: { sites: sitesDigest, units: units.digest, metrics: metrics.digest, summaries: summariesDigest },
    from: iso(fromMs),
    to: iso(toMs),
    measurementNames: [...new Set(names ?? [])],
  });
  // How much was recorded; requests that failed for good left their data out.
  return {
    sites: sites.size,
    stations: stationIds.length,
    units: units.records,
    metrics: metrics.records,
    summaries: summaries.length,
    failures: units.failures + metrics.failures + summaryFailures,
    id: staged.id,
  };
}

/** Parses `now`, `-24h`-style offsets from now (s, m, h, d), or an ISO 8601 date-time. */
export function parseTime(raw: string, nowMs: number): number {
  if (raw === 'now') return nowMs;
  const rel = /^-(\d+)(s|m|h|d)$/.exec(raw);
  if (rel)
    return nowMs - Number(rel[1]) * { s: 1e3, m: 6e4, h: 36e5, d: 864e5 }[rel[2] as 's' | 'm' | 'h' | 'd'];
  const ms = /^\d{4}-\d{2}-\d{2}T/.test(raw) ? Date.parse(raw) : Number.NaN;
  if (Number.isNaN(ms))
    throw new Error(`invalid time "${raw}": use an ISO 8601 date-time, now, or e.g. -24h`);
  return ms;
}

export const RECORD_USAGE = `Usage: station-exporter record --config FILE --from T1 --to T2 --out DIR
  Records sites, units, measurements and the configured summaries from the upstream in the
  window [T1, T2) into DIR as gzip NDJSON, for 'simulate --replay DIR'. T1 and T2 are ISO 8601
  date-times, 'now', or offsets such as -24h (write --from=-24h). Progress goes to stderr.
  Files are written aside and moved into DIR when all are complete, meta.json last, so DIR
  keeps its previous recording until then. Exit 0: recorded; 1: recorded, but some requests
  failed for good; 2: bad arguments or config; 130/143: stopped by SIGINT/SIGTERM, DIR left as
  it was (a second signal exits at once).
  -h, --help   show this help
`;

/** `record ...`; returns the exit code. */
export async function runRecord(argv: string[]): Promise<number> {
  let values: { config?: string; from?: string; to?: string; out?: string; help?: boolean };
  let fromMs: number;
  let toMs: number;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        config: { type: 'string' },
        from: { type: 'string' },
        to: { type: 'string' },
        out: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
    if (values.help) {
      process.stdout.write(RECORD_USAGE);
      return 0;
    }
    if (!values.config || !values.from || !values.to || !values.out)
      throw new Error('--config, --from, --to and --out are required');
    const now = Date.now();
    fromMs = parseTime(values.from, now);
    toMs = parseTime(values.to, now);
    if (fromMs >= toMs) throw new Error('--from must be before --to');
  } catch (err) {
    process.stderr.write(`record: ${err instanceof Error ? err.message : String(err)}\n\n${RECORD_USAGE}`);
    return 2;
  }
  let config: Config;
  try {
    config = await loadConfig(values.config);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      return 2;
    }
    throw err;
  }
  return recordUntilStopped({ config, fromMs, toMs, outDir: values.out });
}

/** Records with progress on stderr; SIGTERM and SIGINT stop it and leave the directory as it was. */
async function recordUntilStopped(opts: Omit<RecordOptions, 'progress' | 'signal'>): Promise<number> {
  const progress = (line: string) => process.stderr.write(`record: ${line}\n`);
  progress(`${iso(opts.fromMs)} .. ${iso(opts.toMs)} into ${opts.outDir}`);
  const stop = new AbortController();
  let received: NodeJS.Signals | undefined;
  // A second signal exits at once, for when stopping cleanly hangs.
  const onSignal = (sig: NodeJS.Signals) => {
    if (received !== undefined) process.exit(signalExitCode(sig));
    received = sig;
    progress(`${sig}: stopping; ${opts.outDir} keeps what it held (again to exit at once)`);
    stop.abort(new Error(`stopped by ${sig}`));
  };
  process.on('SIGTERM', onSignal).on('SIGINT', onSignal);
  try {
    const r = await recordUpstream({ ...opts, progress, signal: stop.signal });
    progress(
      `done: recording ${r.id}: ${r.units} unit records, ${r.metrics} measurements, ${r.summaries} summaries`,
    );
    if (r.failures > 0) progress(`${r.failures} requests failed for good: the recording is incomplete`);
    return r.failures > 0 ? 1 : 0;
  } catch (err) {
    if (received === undefined) throw err;
    progress(`stopped by ${received}: nothing written, ${opts.outDir} is as it was`);
    return signalExitCode(received);
  } finally {
    process.off('SIGTERM', onSignal).off('SIGINT', onSignal);
  }
}

/** 128 + the signal's number: what a shell reports for a process that the signal ended. */
function signalExitCode(sig: NodeJS.Signals): number {
  return 128 + constants.signals[sig];
}
