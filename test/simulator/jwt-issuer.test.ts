import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { issueJwt, parseExpiry, verifyJwt } from '../../src/simulator/jwt-issuer.ts';
import { parseSimulatorCommand } from '../../src/simulator/main.ts';
import { jwtExpiry } from '../../src/upstream/jwt.ts';
import { fixedSim, get, HOUR, NOW } from './helpers.ts';

const SECRET = 'test-secret-0123456789';
const nowS = Math.floor(NOW / 1000);

describe('simulator JWTs', () => {
  it('issues a standard HS256 token: header, claims, and a signature anyone can recompute', () => {
    const token = issueJwt({ sites: ['a'.repeat(24)], iatSeconds: nowS, expSeconds: nowS + 3600 }, SECRET);
    const [h, p, sig] = token.split('.') as [string, string, string];
    expect(JSON.parse(Buffer.from(h, 'base64url').toString())).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(JSON.parse(Buffer.from(p, 'base64url').toString())).toMatchObject({
      sites: ['a'.repeat(24)],
      exp: nowS + 3600,
    });
    expect(sig).toBe(createHmac('sha256', SECRET).update(`${h}.${p}`).digest('base64url'));
    expect(jwtExpiry(token)).toBe(nowS + 3600);
  });

  it('refuses a wrong signature, an expired token, alg none and garbage', () => {
    const token = issueJwt({ sites: 'all', iatSeconds: nowS, expSeconds: nowS + 60 }, SECRET);
    expect(verifyJwt(token, SECRET, NOW)).toEqual({ ok: true, scope: { sites: 'all' } });
    expect(verifyJwt(token, 'other', NOW)).toEqual({ ok: false, problem: 'signature' });
    expect(verifyJwt(token, SECRET, NOW + 60_000)).toEqual({ ok: false, problem: 'expired' });
    const [, p] = token.split('.');
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${p}.`;
    expect(verifyJwt(none, SECRET, NOW)).toEqual({ ok: false, problem: 'malformed' });
    expect(verifyJwt('a.b', SECRET, NOW)).toEqual({ ok: false, problem: 'malformed' });
  });

  it('serves a valid token within its sites, and answers 401 once it has expired', async () => {
    const { sim, clock } = fixedSim({ jwtSecret: SECRET });
    const site = sim.plant.sites[1]!.id;
    const token = issueJwt({ sites: [site], iatSeconds: nowS, expSeconds: nowS + 3600 }, SECRET);
    const ok = await get(sim, '/sites', token);
    expect(ok.status).toBe(200);
    expect(ok.body.data.map((s: { id: string }) => s.id)).toEqual([site]);
    expect((await get(sim, `/sites/${sim.plant.sites[0]!.id}`, token)).status).toBe(403);
    clock.now = NOW + HOUR;
    const expired = await get(sim, '/sites', token);
    expect(expired.status).toBe(401);
    expect(expired.body.error.message).toBe('Bearer token has expired');
    expect(expired.text).not.toContain(token);
  });

  it('accepts no JWT without a secret, and the static tokens still work with one', async () => {
    const token = issueJwt({ sites: 'all', iatSeconds: nowS, expSeconds: nowS + 3600 }, SECRET);
    expect((await get(fixedSim().sim, '/sites', token)).status).toBe(401);
    expect((await get(fixedSim({ jwtSecret: SECRET }).sim, '/sites')).status).toBe(200);
  });

  it('parses --issue-token, --sites as ids, and --expires', () => {
    expect(parseExpiry('30d')).toBe(30 * 86_400);
    expect(parseExpiry('90s')).toBe(90);
    expect(() => parseExpiry('30 days')).toThrow(/invalid expiry/);
    expect(
      parseSimulatorCommand(['--issue-token', '--sites', 'all', '--expires', '2h'], {
        STATION_SIM_JWT_SECRET: 's',
      }),
    ).toEqual({ kind: 'issue-token', request: { sites: 'all', expiresSeconds: 7200, secret: 's' } });
    const cmd = parseSimulatorCommand([
      '--issue-token',
      '--sites',
      'ab,cd',
      '--expires',
      '1d',
      '--jwt-secret',
      'x',
    ]);
    expect(cmd).toEqual({
      kind: 'issue-token',
      request: { sites: ['ab', 'cd'], expiresSeconds: 86_400, secret: 'x' },
    });
    expect(() => parseSimulatorCommand(['--issue-token', '--expires', '1d'])).toThrow(/--sites/);
    const serve = parseSimulatorCommand(['--port', '0'], { STATION_SIM_JWT_SECRET: 'k' });
    expect(serve !== 'help' && serve.kind === 'serve' && serve.opts.jwtSecret).toBe('k');
  });
});
