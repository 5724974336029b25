/**
 * Starts a real Prometheus server (Debian package `prometheus`) on loopback for integration
 * tests, and queries it. Bounded: every wait has a deadline.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../../bench/shared/free-port.ts';

export { freePort };

/** Path of the prometheus binary, or undefined. */
export function prometheusPath(): string | undefined {
  const r = spawnSync('sh', ['-c', 'command -v prometheus'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

function extrasYaml(extras: PrometheusExtras): string {
  let yaml = '';
  if (extras.ruleFiles?.length)
    yaml += `rule_files:\n${extras.ruleFiles.map((f) => `  - '${f}'\n`).join('')}`;
  if (extras.alertmanager) {
    yaml += `alerting:\n  alertmanagers:\n    - static_configs:\n        - targets: ['${extras.alertmanager}']\n`;
  }
  return yaml;
}

/** One series of a query's answer: an instant value, or the samples of a range selector. */
interface QueriedSeries {
  metric: Record<string, string>;
  value?: [number, string];
  values?: Array<[number, string]>;
}

export interface RunningPrometheus {
  readonly url: string;
  query(expr: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>>;
  /**
   * Instant query at an exact time (seconds; default now), for answers without extrapolation;
   * throws on a query error.
   */
  queryAt(expr: string, time?: number): Promise<QueriedSeries[]>;
  /** Polls `expr` until `accept` holds for its result, or throws after `timeoutMs`. */
  waitFor(
    expr: string,
    accept: (r: Array<{ metric: Record<string, string>; value: [number, string] }>) => boolean,
    timeoutMs?: number,
  ): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Rule files to load, an Alertmanager to send alerts to (rules are evaluated every second), and
 * keys to add to the scrape job (e.g. scheme, tls_config, basic_auth), indented by four spaces.
 */
export interface PrometheusExtras {
  readonly ruleFiles?: readonly string[];
  /** host:port of an Alertmanager. */
  readonly alertmanager?: string;
  readonly jobYaml?: string;
  /** `--enable-feature` values, e.g. `native-histograms` (then Prometheus scrapes protobuf first). */
  readonly features?: readonly string[];
}

/** Starts Prometheus scraping `target` (host:port) every second. */
export async function startPrometheus(
  target: string,
  extras: PrometheusExtras = {},
): Promise<RunningPrometheus> {
  const bin = prometheusPath();
  if (!bin) throw new Error('prometheus not found');
  const dir = mkdtempSync(path.join(tmpdir(), 'prom-'));
  const port = await freePort();
  writeFileSync(
    path.join(dir, 'prometheus.yml'),
    `global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\nscrape_configs:\n  - job_name: station\n${extras.jobYaml ?? ''}    static_configs:\n      - targets: ['${target}']\n${extrasYaml(extras)}`,
  );
  const child: ChildProcess = spawn(
    bin,
    [
      `--config.file=${path.join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--rules.alert.resend-delay=1s',
      ...(extras.features?.length ? [`--enable-feature=${extras.features.join(',')}`] : []),
    ],
    { stdio: 'ignore' },
  );
  const url = `http://127.0.0.1:${port}`;
  const query: RunningPrometheus['query'] = async (expr) => {
    const res = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(expr)}`);
    const body = (await res.json()) as {
      data?: { result?: Array<{ metric: Record<string, string>; value: [number, string] }> };
    };
    return body.data?.result ?? [];
  };
  return {
    url,
    query,
    async queryAt(expr, time) {
      const at = time === undefined ? '' : `&time=${time}`;
      const res = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(expr)}${at}`);
      const body = (await res.json()) as {
        status: string;
        error?: string;
        data: { result: QueriedSeries[] };
      };
      if (body.status !== 'success') throw new Error(`${expr}: ${body.error}`);
      return body.data.result;
    },
    async waitFor(expr, accept, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      let last: unknown;
      while (Date.now() < deadline) {
        try {
          const r = await query(expr);
          last = r;
          if (accept(r)) return;
        } catch (err) {
          last = err;
        }
        await new Promise((r) => setTimeout(r, 250));
      }
      throw new Error(`timed out waiting for ${expr}; last: ${JSON.stringify(last)}`);
    },
    async stop() {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
