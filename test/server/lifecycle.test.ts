import { describe, expect, it } from 'vitest';
import { ExpositionCache } from '../../src/exposition/cache.ts';
import { Registry } from '../../src/exposition/client.ts';
import { SelfMetrics } from '../../src/exposition/selfmetrics.ts';
import { createApp, type ReloadResult } from '../../src/server/app.ts';
import { singleFlight } from '../../src/server/lifecycle.ts';

function app(reload?: () => Promise<ReloadResult>) {
  const registry = new Registry();
  return createApp({
    cache: new ExpositionCache(),
    registry,
    self: new SelfMetrics(registry, { version: '1', wallClock: () => 0 }),
    version: '1',
    status: () => [],
    ready: () => true,
    upstream: 'https://u.example',
    reload,
  });
}

describe('lifecycle API', () => {
  it('answers 403 as Prometheus does when it is not enabled', async () => {
    const res = await app().request('/-/reload', { method: 'POST' });
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('Lifecycle API is not enabled.');
  });

  it('reloads on POST and PUT; 409 when there is no config file; 500 when the reload failed', async () => {
    expect((await app(async () => ({ ok: true })).request('/-/reload', { method: 'PUT' })).status).toBe(200);
    const demo = await app(async () => ({ ok: false, error: 'demo mode', noConfig: true })).request(
      '/-/reload',
      {
        method: 'POST',
      },
    );
    expect([demo.status, await demo.text()]).toEqual([409, 'Cannot reload: demo mode\n']);
    const bad = await app(async () => ({ ok: false, error: 'bogus: unknown key' })).request('/-/reload', {
      method: 'POST',
    });
    expect([bad.status, await bad.text()]).toEqual([500, 'Reload failed: bogus: unknown key\n']);
  });

  it('joins a reload asked for while one runs, and starts a new one after', async () => {
    const finishers: Array<(r: ReloadResult) => void> = [];
    const reload = singleFlight(() => new Promise<ReloadResult>((resolve) => finishers.push(resolve)));
    const a = app(reload);
    const posts = Array.from({ length: 20 }, () => a.request('/-/reload', { method: 'POST' }));
    await new Promise((r) => setImmediate(r));
    expect(finishers).toHaveLength(1);
    finishers[0]?.({ ok: false, error: 'x' });
    const statuses = await Promise.all(posts.map(async (p) => (await p).status));
    expect(statuses).toEqual(Array(20).fill(500));
    const next = a.request('/-/reload', { method: 'POST' });
    await new Promise((r) => setImmediate(r));
    expect(finishers).toHaveLength(2);
    finishers[1]?.({ ok: true });
    expect((await next).status).toBe(200);
  });
});
