import type { HttpBindings } from '@hono/node-server';
import { describe, expect, it } from 'vitest';
import { BasicAuth, dummyHashFor } from '../../../src/server/web-config/auth.ts';
import { guardFetch } from '../../../src/server/web-config/guard.ts';
import type { WebConfig } from '../../../src/server/web-config/load.ts';
import type { WebConfigSource } from '../../../src/server/web-config/watch.ts';

const HASH = '$2y$10$X0h1gDsPszWURQaxFh.zoubFi6DXncSjhoQNJgRrnGs7EsimhC7zG';

const config: WebConfig = {
  tls: undefined,
  users: new Map([['prometheus', HASH]]),
  dummyHash: dummyHashFor([HASH]),
  rateLimit: undefined,
  headers: { 'X-Frame-Options': 'deny' },
  fingerprint: 'f',
};

const source: WebConfigSource = {
  current: () => config,
  refresh: async () => config,
  status: () => ({ lastReloadOk: true, lastSuccessMs: 0 }),
  onChange: () => {},
};

/** The parts of @hono/node-server's bindings the guard reads. */
function env(client: string) {
  const headers: Record<string, string> = {};
  const bindings = {
    incoming: { socket: { remoteAddress: client } },
    outgoing: { setHeader: (name: string, value: string) => (headers[name] = value) },
  } as unknown as HttpBindings;
  return { bindings, headers };
}

const request = (password: string) =>
  new Request('http://exporter/metrics', {
    headers: { authorization: `Basic ${Buffer.from(`prometheus:${password}`).toString('base64')}` },
  });

describe('the web config guard', () => {
  it('answers 429 with Retry-After at once when the bcrypt queue is full, and serves a cached scraper', async () => {
    const finish: Array<() => void> = [];
    let compared = 0;
    const auth = new BasicAuth({
      compare: (password) =>
        new Promise((resolve) => {
          compared++;
          finish.push(() => resolve({ ok: password === 'right', ms: 0 }));
        }),
    });
    const fetch = guardFetch(() => new Response('metrics'), { source, auth });
    const first = fetch(request('right'), env('10.0.0.1').bindings);
    for (let i = 0; i < 5; i++) await Promise.resolve();
    finish.shift()?.();
    expect((await first).status).toBe(200);

    const flood = Array.from({ length: 40 }, (_, i) =>
      fetch(request(`wrong${i}`), env(`10.1.${i}.1`).bindings),
    );
    const refused = await Promise.all(flood.slice(16));
    expect(refused.map((r) => r.status)).toEqual(Array(24).fill(429));
    expect(refused[0]?.headers.get('retry-after')).toBe('1');
    const scraper = env('10.0.0.1');
    const scrape = await fetch(request('right'), scraper.bindings);
    expect([scrape.status, await scrape.text()]).toEqual([200, 'metrics']);
    expect(scraper.headers).toEqual({ 'X-Frame-Options': 'deny' });

    for (let i = 0; i < 40; i++) {
      for (let j = 0; j < 5; j++) await Promise.resolve();
      finish.shift()?.();
    }
    const denied = await Promise.all(flood.slice(0, 16));
    expect(denied.map((r) => r.status)).toEqual(Array(16).fill(401));
    expect(denied[0]?.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
    expect(compared).toBe(17);
  });
});
