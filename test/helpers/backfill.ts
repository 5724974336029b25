/**
 * Backfills a real Prometheus: exposition snapshots taken at chosen instants become one
 * OpenMetrics file with sample timestamps, `promtool tsdb create-blocks-from openmetrics` turns
 * it into TSDB blocks, and a Prometheus started on them answers queries at any of those times.
 * This lets an end-to-end test put hours of an exporter's history (a fake clock's) into a
 * Prometheus in seconds, where scraping would take those hours.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, prometheusPath } from './prometheus.ts';
import { promtoolPath } from './promtool.ts';

/** One OpenMetrics exposition (ending in `# EOF`) and the instants (epoch ms) it held for. */
export interface Snapshot {
  readonly text: string;
  readonly atMs: readonly number[];
}

/** Merges snapshots into one OpenMetrics text with timestamps, each family's samples together. */
export function mergeSnapshots(snapshots: readonly Snapshot[]): string {
  const families = new Map<string, { meta: string[]; samples: string[] }>();
  for (const snap of snapshots) {
    let current: { meta: string[]; samples: string[] } | undefined;
    for (const line of snap.text.split('\n')) {
      if (line === '' || line === '# EOF') continue;
      const meta = /^# (TYPE|HELP|UNIT) (\S+)/.exec(line);
      if (meta) {
        const name = meta[2] ?? '';
        current = families.get(name);
        if (current === undefined) {
          current = { meta: [], samples: [] };
          families.set(name, current);
        }
        if (!current.meta.some((m) => m.startsWith(`# ${meta[1]} `))) current.meta.push(line);
        continue;
      }
      if (current === undefined) throw new Error(`sample before any family: ${line}`);
      // An exemplar (` # {labels} value [time]`) would come before the sample's timestamp: dropped.
      const sample = line.replace(/ # \{[^}]*\} \S+(?: \S+)?$/, '');
      for (const t of snap.atMs) current.samples.push(`${sample} ${(t / 1000).toFixed(3)}`);
    }
  }
  const out: string[] = [];
  for (const f of families.values()) out.push(...f.meta, ...f.samples);
  return `${out.join('\n')}\n# EOF\n`;
}

export interface BackfilledPrometheus {
  /** Instant query at `atMs`. */
  query(
    expr: string,
    atMs: number,
  ): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>>;
  stop(): Promise<void>;
}

/** Writes the blocks and starts Prometheus on them (no scrape targets). */
export async function startBackfilled(openMetrics: string): Promise<BackfilledPrometheus> {
  const prom = prometheusPath();
  const tool = promtoolPath();
  if (!prom || !tool) throw new Error('prometheus and promtool are required');
  const dir = mkdtempSync(path.join(tmpdir(), 'prom-backfill-'));
  const input = path.join(dir, 'input.om');
  writeFileSync(input, openMetrics);
  const made = spawnSync(tool, ['tsdb', 'create-blocks-from', 'openmetrics', input, path.join(dir, 'data')], {
    encoding: 'utf8',
  });
  if (made.status !== 0) throw new Error(`promtool create-blocks-from failed: ${made.stderr}${made.stdout}`);
  writeFileSync(path.join(dir, 'prometheus.yml'), 'global:\n  evaluation_interval: 1m\n');
  const port = await freePort();
  const child: ChildProcess = spawn(
    prom,
    [
      `--config.file=${path.join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`,
      '--storage.tsdb.retention.time=3650d',
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    { stdio: 'ignore' },
  );
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    const ready = await fetch(`${url}/-/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) throw new Error('prometheus did not become ready');
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    async query(expr, atMs) {
      const q = `query=${encodeURIComponent(expr)}&time=${(atMs / 1000).toFixed(3)}`;
      const res = await fetch(`${url}/api/v1/query?${q}`);
      const body = (await res.json()) as {
        status: string;
        error?: string;
        data?: { result?: Array<{ metric: Record<string, string>; value: [number, string] }> };
      };
      if (body.status !== 'success') throw new Error(`query ${expr} failed: ${body.error}`);
      return body.data?.result ?? [];
    },
    async stop() {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
