import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ExpositionCache } from '../../src/exposition/cache.ts';
import { Registry } from '../../src/exposition/client.ts';
import { LabelSet } from '../../src/exposition/model.ts';
import { SelfMetrics } from '../../src/exposition/selfmetrics.ts';
import type { CollectorStatus } from '../../src/scheduler/scheduler.ts';
import { createApp } from '../../src/server/app.ts';

function setup(opts: { ready?: boolean; status?: CollectorStatus[] } = {}) {
  const registry = new Registry();
  const self = new SelfMetrics(registry, { version: '1.2.3', wallClock: () => 0 });
  const cache = new ExpositionCache();
  const app = createApp({
    cache,
    registry,
    self,
    version: '1.2.3',
    status: () => opts.status ?? [],
    ready: () => opts.ready ?? false,
    upstream: 'https://stations.example.com/api',
    wallClock: () => 10_000,
  });
  return { app, cache };
}

describe('server', () => {
  it('is healthy at once, ready only when the scheduler says so', async () => {
    const { app } = setup({ ready: false });
    expect((await app.request('/-/healthy')).status).toBe(200);
    expect((await app.request('/-/ready')).status).toBe(503);
    expect((await setup({ ready: true }).app.request('/-/ready')).status).toBe(200);
  });

  it('serves the published data and self-metrics, plain and gzip, text and OpenMetrics', async () => {
    const { app, cache } = setup();
    await cache.publish('summary', [
      {
        desc: { name: 'station_final_yield_ratio', kind: 'gauge', help: 'h' },
        samples: [{ labels: LabelSet.of({ station: 'a' }), value: 0.5 }],
      },
    ]);
    const plain = await app.request('/metrics');
    expect(plain.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await plain.text();
    expect(text).toContain('station_final_yield_ratio{station="a"} 0.5');
    expect(text).toContain('station_exporter_build_info{version="1.2.3"');
    const om = await app.request('/metrics', {
      headers: { accept: 'application/openmetrics-text;version=1.0.0', 'accept-encoding': 'gzip, deflate' },
    });
    expect(om.headers.get('content-encoding')).toBe('gzip');
    expect(om.headers.get('vary')).toBe('Accept, Accept-Encoding');
    const body = gunzipSync(Buffer.from(await om.arrayBuffer())).toString();
    expect(body).toContain('station_final_yield_ratio{station="a"} 0.5');
    expect(body.endsWith('# EOF\n')).toBe(true);
  });

  it('shows version, upstream and per-collector status on the landing page, HTML-escaped', async () => {
    const { app } = setup({
      status: [
        {
          name: 'summary',
          intervalMs: 60_000,
          polls: 3,
          lastOk: false,
          lastSuccessMs: 4_000,
          lastDurationMs: 12,
          lastError: '<script>x</script>',
        },
      ],
    });
    const html = await (await app.request('/')).text();
    expect(html).toContain('1.2.3');
    expect(html).toContain('https://stations.example.com/api');
    expect(html).toContain('<td>summary</td><td>failing</td>');
    expect(html).toContain('6.0 s ago');
    expect(html).toContain('&lt;script&gt;');
    expect(html).not.toContain('<script>x');
  });

  it('answers 404 elsewhere', async () => {
    expect((await setup().app.request('/nope')).status).toBe(404);
  });
});

describe('server over a socket', () => {
  it('writes the cached chunks directly, byte for byte what app.request gives', async () => {
    const { serve } = await import('@hono/node-server');
    const { app, cache } = setup();
    const families = [
      {
        desc: { name: 'station_info', kind: 'info' as const, help: 'h' },
        samples: Array.from({ length: 5000 }, (_, i) => ({
          labels: LabelSet.of({ station: `s${i}` }),
          value: 1,
        })),
      },
    ];
    await cache.publish('topology', families);
    const server = await new Promise<import('@hono/node-server').ServerType>((resolve) => {
      const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
    });
    try {
      const { port } = server.address() as import('node:net').AddressInfo;
      const plain = await fetch(`http://127.0.0.1:${port}/metrics`, {
        headers: { 'accept-encoding': 'identity' },
      });
      const text = await plain.text();
      expect(plain.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
      expect(text.match(/^station_info\{/gm)).toHaveLength(5000);
      const gz = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { 'accept-encoding': 'gzip' } });
      expect(gz.headers.get('content-encoding')).toBe('gzip');
      // fetch decodes gzip transparently: the same series come out.
      expect((await gz.text()).match(/^station_info\{/gm)).toHaveLength(5000);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
