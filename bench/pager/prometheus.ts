/**
 * A real Prometheus (the Debian 2.42 binary) on backfilled blocks: `promtool tsdb
 * create-blocks-from openmetrics` turns the recording into blocks, Prometheus starts on them with
 * no scrape target and no rules, and each alert expression is evaluated as a range query at its
 * group's interval. Every child is ended by its own pid.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { freePort } from '../shared/free-port.ts';
import type { RangeSeries } from './alert-state.ts';

/** Path of an executable on PATH, or undefined. */
export function which(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const p = path.join(dir, name);
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // Not in this directory.
    }
  }
  return undefined;
}

function run(cmd: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${cmd} ${args.join(' ')}: ${out}`)),
    );
  });
}

/** A Prometheus serving the backfilled blocks. */
export class BackfilledPrometheus {
  readonly #child: ChildProcess;
  readonly #url: string;

  private constructor(child: ChildProcess, url: string) {
    this.#child = child;
    this.#url = url;
  }

  /** Backfills `openMetricsFile` into `dir`/data and starts Prometheus on it. */
  static async start(openMetricsFile: string, dir: string): Promise<BackfilledPrometheus> {
    const promtool = which('promtool');
    const prometheus = which('prometheus');
    if (!promtool || !prometheus)
      throw new Error('prometheus and promtool are required (Debian: apt install prometheus)');
    const data = path.join(dir, 'data');
    mkdirSync(data, { recursive: true });
    await run(promtool, [
      'tsdb',
      'create-blocks-from',
      'openmetrics',
      '--max-block-duration=24h',
      openMetricsFile,
      data,
    ]);
    writeFileSync(path.join(dir, 'prometheus.yml'), 'global:\n  evaluation_interval: 1m\n');
    const port = await freePort();
    const child = spawn(
      prometheus,
      [
        `--config.file=${path.join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${data}`,
        '--storage.tsdb.retention.time=3650d',
        '--query.timeout=20m',
        '--query.max-samples=500000000',
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdio: 'ignore' },
    );
    const url = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 120_000;
    for (;;) {
      const ready = await fetch(`${url}/-/ready`).then(
        (r) => r.ok,
        () => false,
      );
      if (ready) break;
      if (Date.now() > deadline || child.exitCode !== null) {
        child.kill('SIGKILL');
        throw new Error('prometheus did not become ready');
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    return new BackfilledPrometheus(child, url);
  }

  /** `expr` evaluated at every `stepMs` from `startMs` to `endMs`: each series and the times it had a value. */
  async range(
    expr: string,
    span: { readonly startMs: number; readonly endMs: number; readonly stepMs: number },
  ): Promise<RangeSeries[]> {
    const out = new Map<string, { labels: Record<string, string>; times: number[] }>();
    // At most 11,000 points per series and query: split long spans.
    const chunk = 10_000 * span.stepMs;
    for (let from = span.startMs; from <= span.endMs; from += chunk + span.stepMs) {
      const to = Math.min(span.endMs, from + chunk);
      const body = new URLSearchParams({
        query: expr,
        start: (from / 1000).toFixed(3),
        end: (to / 1000).toFixed(3),
        step: `${span.stepMs / 1000}s`,
      });
      const res = await fetch(`${this.#url}/api/v1/query_range`, { method: 'POST', body });
      const json = (await res.json()) as {
        status: string;
        error?: string;
        data?: { result: Array<{ metric: Record<string, string>; values: Array<[number, string]> }> };
      };
      if (json.status !== 'success') throw new Error(`query failed: ${json.error}\n${expr}`);
      for (const s of json.data?.result ?? []) {
        const key = JSON.stringify(Object.entries(s.metric).sort());
        const entry = out.get(key) ?? { labels: s.metric, times: [] };
        for (const [t] of s.values) entry.times.push(Math.round(t * 1000));
        out.set(key, entry);
      }
    }
    return [...out.values()];
  }

  async stop(): Promise<void> {
    if (this.#child.exitCode !== null) return;
    const exited = new Promise((r) => this.#child.once('exit', r));
    this.#child.kill('SIGTERM');
    await exited;
  }
}
