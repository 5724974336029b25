/** The exporter's own metrics, rendered per scrape as the cache's dynamic tail ({@link registryFamilies}). */
import { CIRCUIT_STATES, type CircuitState } from '../upstream/breaker.ts';
import { STATUS_CLASSES, type StatusClass } from '../upstream/errors.ts';
import { Gauge, Histogram, type Registry, selfMetricMakers } from './client.ts';

/** One row of `station_exporter_levels_skipped`: summary levels a poll could not ask for, and why. */
export interface LevelsSkipped {
  readonly level: string;
  readonly reason: string;
  readonly count: number;
}

export { registryFamilies } from './registry-families.ts';

const P = 'station_exporter_';

/** Upstream request duration buckets, in seconds: from a fast cache hit to a 30 s timeout. */
const REQUEST_DURATION_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** One poll's outcome, as {@link SelfMetrics.collectorResult} records it. */
interface CollectorPollResult {
  readonly ok: boolean;
  readonly seconds: number;
  /** When it ended (epoch ms). */
  readonly nowMs: number;
  /** Whether it brought fresh data (default: `ok`), from which the data's age is computed. */
  readonly fresh?: boolean;
}

/** One upstream request, as {@link SelfMetrics.observeRequest} records it. */
interface RequestObservation {
  readonly statusClass: StatusClass;
  /** How long it took, body included. */
  readonly seconds: number;
  /** The response body's size on the wire (0 when there was none). */
  readonly bytes: number;
}

/** Options of {@link SelfMetrics}. */
export interface SelfMetricsOptions {
  readonly version: string;
  readonly commit?: string;
  readonly nodeVersion?: string;
  /** Wall clock in epoch milliseconds for `collector_data_age_seconds`; defaults to Date.now. */
  readonly wallClock?: () => number;
}

/** Typed handle on the self-metrics, registered on `registry` (never the global one) in exposition order. */
export class SelfMetrics {
  readonly #m: ReturnType<typeof instruments>;
  /** Each collector's last fresh poll (epoch ms), for `collector_data_age_seconds` at scrape time. */
  readonly #lastSuccessMs = new Map<string, number>();

  constructor(registry: Registry, opts: SelfMetricsOptions) {
    this.#m = instruments([registry], { ...opts, lastSuccessMs: this.#lastSuccessMs });
  }

  /** Records whether the last request round to the upstream succeeded. */
  setUpstreamUp(up: boolean): void {
    this.#m.upstreamUp.set(up ? 1 : 0);
  }

  /** Records one collector poll: success, duration and, when its data is fresh, its time. */
  collectorResult(collector: string, { ok, seconds, nowMs, fresh = ok }: CollectorPollResult): void {
    this.#m.success.set({ collector }, ok ? 1 : 0);
    this.#m.duration.set({ collector }, seconds);
    if (!fresh) return;
    this.#m.lastSuccess.set({ collector }, nowMs / 1000);
    this.#lastSuccessMs.set(collector, nowMs);
  }

  /** Records a collector's polling interval, for the stale-data alert to compare the data's age with. */
  setCollectorInterval(collector: string, seconds: number): void {
    this.#m.interval.set({ collector }, seconds);
  }

  /** Drops a collector's series, e.g. after a reload disabled it. */
  forgetCollector(collector: string): void {
    const m = this.#m;
    for (const g of [m.success, m.duration, m.lastSuccess, m.interval, m.failedRatio, m.stale])
      g.remove({ collector });
    this.#lastSuccessMs.delete(collector);
  }

  /** Creates the request series of endpoints at 0, so that rate() sees their first increase. */
  initEndpoints(endpoints: readonly string[]): void {
    for (const endpoint of endpoints) {
      for (const status_class of STATUS_CLASSES) this.#m.requests.inc({ endpoint, status_class }, 0);
      this.#m.responseBytes.inc({ endpoint }, 0);
      this.#m.requestDuration.zero({ endpoint });
    }
  }

  /** Records one upstream request. `bytes` is the response body size (0 when there was none). */
  observeRequest(endpoint: string, { statusClass, seconds, bytes }: RequestObservation): void {
    this.#m.requests.inc({ endpoint, status_class: statusClass });
    this.#m.requestDuration.observe({ endpoint }, seconds);
    this.#m.responseBytes.inc({ endpoint }, bytes);
  }

  /** Counts records dropped at the edge because they did not match the expected shape. */
  recordSkipped(endpoint: string, reason: string, n: number): void {
    this.#m.skipped.inc({ endpoint, reason }, n);
  }

  /** Counts upstream label values masked or cut, or elements left out for their id, by reason. */
  labelValuesRedacted(collector: string, reason: string, n: number): void {
    this.#m.labelValues.inc({ collector, reason }, n);
  }

  /** Sets the token's `exp` (epoch seconds), or removes the series when it is unknown. */
  setTokenExpiry(epochSeconds: number | undefined): void {
    if (epochSeconds === undefined) this.#m.tokenExpiry.remove();
    else this.#m.tokenExpiry.set(epochSeconds);
  }

  /** Counts one scrape of /metrics, its answer gzip-compressed or not (identity). */
  recordScrape(format: 'text' | 'openmetrics' | 'protobuf', { gzip }: { readonly gzip: boolean }): void {
    this.#m.scrapes.inc({ format, encoding: gzip ? 'gzip' : 'identity' });
  }

  /** Records the last published snapshot: series count and render time. */
  setSnapshot(n: number, renderSeconds: number): void {
    this.#m.series.set(n);
    this.#m.renderDuration.set(renderSeconds);
  }

  /** Replaces the level entities skipped in the last poll. */
  setLevelsSkipped(rows: readonly LevelsSkipped[]): void {
    this.#m.levelsSkipped.reset();
    for (const r of rows) this.#m.levelsSkipped.set({ level: r.level, reason: r.reason }, r.count);
  }

  /** Sets how many configured stations the token cannot see. */
  setStationsInaccessible(n: number): void {
    this.#m.inaccessible.set(n);
  }

  /** Records an endpoint's circuit breaker state. */
  setCircuitState(endpoint: string, state: CircuitState): void {
    this.#m.circuit.set({ endpoint }, CIRCUIT_STATES[state]);
  }

  /** Counts one retry of a failed request, by the failure's status class. */
  recordRetry(endpoint: string, statusClass: StatusClass): void {
    this.#m.retries.inc({ endpoint, status_class: statusClass });
  }

  /** Sets how many summary requests were narrowed to their accessible stations in the last poll. */
  setSummaryPartial(n: number): void {
    this.#m.summaryPartial.set(n);
  }

  /** Sets how many stations the upstream refused (403) in record requests. */
  setStationsRefused(n: number): void {
    this.#m.refused.set(n);
  }

  /** Counts one poll's requests and failures for the collector, and sets its failed share. */
  collectorRequests(collector: string, requests: number, failures: number): void {
    this.#m.collectorRequests.inc({ collector }, requests);
    this.#m.collectorFailures.inc({ collector }, failures);
    this.#m.failedRatio.set({ collector }, requests > 0 ? failures / requests : 0);
  }

  /** Marks a collector's series as dropped (1) for exceeding max_staleness, or served again (0). */
  setCollectorStale(collector: string, { stale }: { readonly stale: boolean }): void {
    this.#m.stale.set({ collector }, stale ? 1 : 0);
  }

  /** Records one config reload attempt: whether the new config took effect, and when (epoch ms). */
  recordReload({ ok, nowMs }: { readonly ok: boolean; readonly nowMs: number }): void {
    this.#m.reloadOk.set(ok ? 1 : 0);
    if (ok) this.#m.reloadTime.set(nowMs / 1000);
  }

  /** Records one read of the approved-limits file: good (taken) or bad (the last good one stays). */
  recordLimitsFile({ ok }: { readonly ok: boolean }): void {
    this.#m.limitsFileOk.set(ok ? 1 : 0);
    if (!ok) this.#m.limitsFileFailures.inc();
  }

  /** Whether the token expires within the warning margin. */
  setTokenExpiring(expiring: boolean): void {
    this.#m.expiring.set(expiring ? 1 : 0);
  }

  /** Whether the token file is unreadable (the last token read is still used). */
  setTokenFileError(failing: boolean): void {
    this.#m.fileError.set(failing ? 1 : 0);
  }
}

/**
 * Registers the families in exposition order: collectors, requests and scrapes, then retries,
 * breakers, refused stations, staleness, reloads and the token.
 */
function instruments(
  registers: Registry[],
  opts: SelfMetricsOptions & { readonly lastSuccessMs: ReadonlyMap<string, number> },
) {
  const { gauge, counter } = selfMetricMakers(registers);
  const m = {
    upstreamUp: gauge(
      'upstream_up',
      'Whether the last request round to the upstream Station Data Query Service succeeded (1) or not (0).',
    ),
    success: gauge(
      'collector_success',
      'Whether the last poll of the collector succeeded (1) or not (0), as seen by the scheduler.',
      ['collector'],
    ),
    duration: gauge(
      'collector_duration_seconds',
      'Wall-clock duration of the last poll of the collector, measured by the scheduler.',
      ['collector'],
    ),
    lastSuccess: gauge(
      'collector_last_success_timestamp_seconds',
      'Time of the last successful poll of the collector (exporter clock); its data is served from cache.',
      ['collector'],
    ),
    // Exported so that alerts on data age need no copy of the config kept by hand in Prometheus.
    interval: gauge(
      'collector_interval_seconds',
      "Configured polling interval of the collector, from the exporter's config (topology: the discovery refresh interval).",
      ['collector'],
    ),
    dataAge: dataAgeGauge(registers, opts.wallClock ?? Date.now, opts.lastSuccessMs),
    requests: counter(
      'upstream_requests_total',
      'Requests made to the upstream API, by endpoint and outcome class (HTTP status class, timeout, network error or invalid body).',
      ['endpoint', 'status_class'],
    ),
    requestDuration: new Histogram({
      name: `${P}upstream_request_duration_seconds`,
      help: 'Duration of upstream API requests including reading the body, measured by the exporter.',
      labelNames: ['endpoint'],
      buckets: REQUEST_DURATION_BUCKETS,
      registers,
    }),
    responseBytes: counter(
      'upstream_response_bytes_total',
      'Bytes of upstream API response bodies received, by endpoint.',
      ['endpoint'],
    ),
    skipped: counter(
      'records_skipped_total',
      'Upstream records dropped at the edge because they did not match the expected shape, by endpoint and reason.',
      ['endpoint', 'reason'],
    ),
    labelValues: counter(
      'label_values_redacted_total',
      'Label values from the upstream that were not exported as sent, by collector and reason: secret (carried a known token or a Bearer credential: masked as [REDACTED]), too_long (longer than 256 characters: cut, ending in an ellipsis) or ill_formed (held a lone UTF-16 surrogate, which UTF-8 cannot carry: exported as U+FFFD); an element whose id would need masking or cutting is left out and counted here. Names and descriptions count at every topology refresh; record fields (slot, unit, result) once per distinct value.',
      ['collector', 'reason'],
    ),
    tokenExpiry: gauge(
      'token_expiry_timestamp_seconds',
      'Expiry time (exp claim) of the configured bearer token; absent when the token has no readable exp.',
    ),
    buildInfo: gauge(
      'build_info',
      'Build information of the exporter, constant 1; version, commit and Node.js version as labels.',
      ['version', 'commit', 'node_version'],
    ),
    scrapes: counter(
      'scrapes_total',
      'Scrapes of /metrics served by the exporter, by exposition format and content encoding.',
      ['format', 'encoding'],
    ),
    series: gauge(
      'series',
      'Series in the last published snapshot of collector data (self-metrics excluded).',
    ),
    renderDuration: gauge(
      'render_duration_seconds',
      'Time spent rendering the last published snapshot into every exposition format (text, OpenMetrics, protobuf).',
    ),
    levelsSkipped: gauge(
      'levels_skipped',
      'Level entities (sites, lines, groups) whose /station/summary query was skipped in the last poll, by level and reason.',
      ['level', 'reason'],
    ),
    inaccessible: gauge(
      'stations_inaccessible',
      'Configured stations that the bearer token cannot see, from the last topology refresh.',
    ),
    circuit: gauge(
      'upstream_circuit_state',
      'Circuit breaker state of each upstream endpoint, from the exporter: 0 closed (normal), 1 half-open (probing), 2 open (requests not sent).',
      ['endpoint'],
    ),
    retries: counter(
      'upstream_retries_total',
      'Upstream requests sent again after a transient failure, by endpoint and the status class of the failure.',
      ['endpoint', 'status_class'],
    ),
    refused: gauge(
      'stations_refused',
      'Stations whose records the upstream refuses to this token (403), found by splitting batched requests; left out of polls and re-probed slowly.',
    ),
    summaryPartial: gauge(
      'aggregate_requests_partial',
      'Summary requests (one per level entity and window) of the last poll sent for the accessible stations only, because the entity holds stations the upstream refuses (403).',
    ),
    collectorRequests: counter(
      'collector_requests_total',
      'Upstream requests due in the polls of the collector, sent or not (circuit open), as counted by the collector (retries excluded).',
      ['collector'],
    ),
    collectorFailures: counter(
      'collector_request_failures_total',
      'Upstream requests of the collector that brought no answer: failed for good (after retries) or not sent (circuit open); their data kept its last values.',
      ['collector'],
    ),
    failedRatio: gauge(
      'collector_failed_requests_ratio',
      "Share of the upstream requests of the collector's last poll with requests due that brought no answer (0 before any).",
      ['collector'],
    ),
    stale: gauge(
      'collector_stale',
      "1 while the collector's series are dropped because its data is older than its max_staleness, else 0.",
      ['collector'],
    ),
    reloadOk: gauge(
      'config_last_reload_successful',
      'Whether the last config reload attempt succeeded (1) or not (0); 1 before any reload.',
    ),
    reloadTime: gauge(
      'config_last_reload_success_timestamp_seconds',
      'Time of the last successful config load (start-up or reload), exporter clock.',
    ),
    limitsFileOk: gauge(
      'limits_file_last_reload_successful',
      'Whether the last read of the approved-limits file (measurements.control.limits_file, read again when it ' +
        'changes on disk) gave a valid file (1) or not (0: the last good one is still used); 1 before any read.',
    ),
    limitsFileFailures: counter(
      'limits_file_reload_failures_total',
      'Reads of the approved-limits file that found it missing or invalid (each state of the file counted once); the last good one stays in use.',
    ),
    expiring: gauge(
      'token_expiring',
      'Whether the bearer token (a JWT) expires within upstream.token_expiry_warning (1) or not (0).',
    ),
    fileError: gauge(
      'token_file_error',
      'Whether the token file cannot be read now (1); the last token read is still used.',
    ),
  };
  // An unlabelled prom-client gauge starts at 0; an expiry of 1970 would page someone.
  m.tokenExpiry.remove();
  const node_version = opts.nodeVersion ?? process.version;
  m.buildInfo.set({ version: opts.version, commit: opts.commit ?? 'unknown', node_version }, 1);
  m.reloadOk.set(1);
  m.limitsFileOk.set(1);
  m.fileError.set(0);
  return m;
}

/** `collector_data_age_seconds`, computed at scrape time from each collector's last fresh poll. */
function dataAgeGauge(registers: Registry[], now: () => number, lastSuccessMs: ReadonlyMap<string, number>) {
  return new Gauge({
    name: `${P}collector_data_age_seconds`,
    help: 'Age of the cached data of the collector at scrape time: exporter clock minus the end of its last poll whose due requests were all answered (a poll with nothing due does not count).',
    labelNames: ['collector'],
    registers,
    collect() {
      const t = now();
      this.reset();
      for (const [collector, ms] of lastSuccessMs) this.set({ collector }, (t - ms) / 1000);
    },
  });
}
