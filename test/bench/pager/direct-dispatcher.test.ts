import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { DirectDispatcher } from '../../../bench/pager/direct-dispatcher.ts';

describe('DirectDispatcher', () => {
  it('hands the request to the fetch handler and returns its answer', async () => {
    let seen: Request | undefined;
    const dispatcher = new DirectDispatcher((req) => {
      seen = req;
      return new Response(JSON.stringify({ ok: true }), {
        status: 201,
        headers: { 'content-type': 'application/json', 'x-extra': 'yes' },
      });
    });
    const res = await request('http://sim.invalid/units?station_ids=a,b', {
      dispatcher,
      headers: { authorization: 'Bearer t', 'accept-encoding': 'gzip' },
    });
    expect(res.statusCode).toBe(201);
    expect(res.headers['x-extra']).toBe('yes');
    expect(await res.body.json()).toEqual({ ok: true });
    expect(seen?.url).toBe('http://sim.invalid/units?station_ids=a,b');
    expect(seen?.headers.get('authorization')).toBe('Bearer t');
    // No compression in-process: it would only cost CPU on both sides.
    expect(seen?.headers.get('accept-encoding')).toBeNull();
  });

  it('passes an empty body and an error status through', async () => {
    const dispatcher = new DirectDispatcher(() => new Response(null, { status: 503 }));
    const res = await request('http://sim.invalid/sites', { dispatcher });
    expect(res.statusCode).toBe(503);
    expect(await res.body.text()).toBe('');
  });

  it('rejects the request when the handler throws', async () => {
    const dispatcher = new DirectDispatcher(() => {
      throw new Error('boom');
    });
    await expect(request('http://sim.invalid/sites', { dispatcher })).rejects.toThrow('boom');
  });

  it('rejects an aborted request', async () => {
    const dispatcher = new DirectDispatcher(() => new Promise<Response>(() => {}));
    const ac = new AbortController();
    const pending = request('http://sim.invalid/sites', { dispatcher, signal: ac.signal });
    ac.abort(new Error('stop'));
    await expect(pending).rejects.toThrow();
  });
});
