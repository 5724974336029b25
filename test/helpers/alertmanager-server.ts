/**
 * Starts a real Alertmanager (Debian package `prometheus-alertmanager`) on loopback, routing
 * every alert to a webhook, for end-to-end tests. Clustering is off; every wait is bounded.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './prometheus.ts';

/** Path of the alertmanager binary (Debian names it prometheus-alertmanager), or undefined. */
export function alertmanagerPath(): string | undefined {
  const r = spawnSync('sh', ['-c', 'command -v prometheus-alertmanager || command -v alertmanager'], {
    encoding: 'utf8',
  });
  return r.status === 0 && r.stdout.trim() !== '' ? r.stdout.trim().split('\n')[0] : undefined;
}

export interface RunningAlertmanager {
  /** host:port, for Prometheus' alerting config. */
  readonly address: string;
  stop(): Promise<void>;
}

/** Starts Alertmanager grouping by alertname/site/line, with short waits, sending to `webhookUrl`. */
export async function startAlertmanager(webhookUrl: string): Promise<RunningAlertmanager> {
  const bin = alertmanagerPath();
  if (!bin) throw new Error('alertmanager not found');
  const dir = mkdtempSync(path.join(tmpdir(), 'am-'));
  const port = await freePort();
  writeFileSync(
    path.join(dir, 'alertmanager.yml'),
    [
      'route:',
      '  receiver: test',
      '  group_by: [alertname, site, line]',
      '  group_wait: 1s',
      '  group_interval: 1s',
      '  repeat_interval: 1h',
      'receivers:',
      '  - name: test',
      '    webhook_configs:',
      `      - url: ${webhookUrl}`,
      '        send_resolved: true',
      '',
    ].join('\n'),
  );
  const child: ChildProcess = spawn(
    bin,
    [
      `--config.file=${path.join(dir, 'alertmanager.yml')}`,
      `--storage.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--cluster.listen-address=',
    ],
    { stdio: 'ignore' },
  );
  const address = `127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      if ((await fetch(`http://${address}/-/ready`)).ok) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill('SIGKILL');
      throw new Error('alertmanager did not become ready');
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    address,
    async stop() {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A webhook receiver on loopback: calls `onMessage` with each JSON body and the request path. */
export async function startWebhook(
  onMessage: (body: unknown, path: string) => void,
): Promise<{ readonly server: Server; readonly port: number }> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      onMessage(JSON.parse(body), req.url ?? '');
      res.end();
    });
  });
  const port = await new Promise<number>((r) =>
    server.listen(0, '127.0.0.1', () => r((server.address() as AddressInfo).port)),
  );
  return { server, port };
}
