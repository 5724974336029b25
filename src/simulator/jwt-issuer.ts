/**
 * HS256 JSON Web Tokens with node:crypto, enough for the simulator to issue and check real
 * tokens: `exp` (epoch seconds) and a `sites` claim (`"all"` or a list of site ids).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { TokenScope } from './types.ts';

const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

function sign(input: string, secret: string): string {
  return createHmac('sha256', secret).update(input).digest('base64url');
}

/** Issues a token for `sites`, expiring at `expSeconds` (epoch seconds). */
export function issueJwt(
  opts: { sites: 'all' | readonly string[]; expSeconds: number; iatSeconds: number },
  secret: string,
): string {
  const claims = { sub: 'station-exporter', sites: opts.sites, iat: opts.iatSeconds, exp: opts.expSeconds };
  const body = `${HEADER}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  return `${body}.${sign(body, secret)}`;
}

/** A fresh random secret, base64url. */
export function generateSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** Why a token was refused; each is a 401. */
type JwtProblem = 'malformed' | 'signature' | 'expired' | 'scope';

/** The checked token's scope, or why it is refused. */
export type JwtCheck = { ok: true; scope: TokenScope } | { ok: false; problem: JwtProblem };

function decodeJson(part: string): unknown {
  try {
    return JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}

function scopeOf(sites: unknown): TokenScope | undefined {
  if (sites === 'all') return { sites: 'all' };
  if (Array.isArray(sites) && sites.every((s) => typeof s === 'string')) return { sites: [...sites] };
  return undefined;
}

/** Verifies signature (HS256 only), `exp` against `nowMs`, and the `sites` claim. */
export function verifyJwt(token: string, secret: string, nowMs: number): JwtCheck {
  const parts = token.split('.');
  if (parts.length !== 3) return { ok: false, problem: 'malformed' };
  const [header, payload, signature] = parts as [string, string, string];
  const alg = (decodeJson(header) as { alg?: unknown } | undefined)?.alg;
  if (alg !== 'HS256') return { ok: false, problem: 'malformed' };
  const expected = Buffer.from(sign(`${header}.${payload}`, secret));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
    return { ok: false, problem: 'signature' };
  }
  const claims = decodeJson(payload) as { exp?: unknown; sites?: unknown } | undefined;
  if (typeof claims?.exp !== 'number' || !Number.isFinite(claims.exp))
    return { ok: false, problem: 'malformed' };
  if (claims.exp * 1000 <= nowMs) return { ok: false, problem: 'expired' };
  const scope = scopeOf(claims.sites);
  return scope ? { ok: true, scope } : { ok: false, problem: 'scope' };
}

/** Parses `30d`, `12h`, `45m` or `90s` into seconds. */
export function parseExpiry(raw: string): number {
  const m = /^(\d+)(s|m|h|d)$/.exec(raw.trim());
  if (!m) throw new Error(`invalid expiry "${raw}": use e.g. 30d, 12h, 45m or 90s`);
  const unit = { s: 1, m: 60, h: 3600, d: 86_400 }[m[2] as 's' | 'm' | 'h' | 'd'];
  return Number(m[1]) * unit;
}
