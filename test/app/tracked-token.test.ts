import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { TrackedToken } from '../../src/app/tracked-token.ts';
import type { SelfMetrics } from '../../src/exposition/selfmetrics.ts';
import { Redactor } from '../../src/util/redact.ts';

const DAY = 86_400_000;
const NOW = Date.parse('2026-11-26T00:00:00Z');

/** An unsigned JWT with `exp` (epoch seconds): only the claims are read. */
function jwt(exp: number): string {
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${part({ alg: 'none' })}.${part({ exp })}.sig`;
}

/** What the token reports to: the self-metrics' calls and the log lines. */
function rig() {
  const calls: Array<[string, unknown]> = [];
  const self = {
    setTokenExpiry: (v: unknown) => calls.push(['expiry', v]),
    setTokenExpiring: (v: unknown) => calls.push(['expiring', v]),
    setTokenFileError: (v: unknown) => calls.push(['fileError', v]),
  } as unknown as SelfMetrics;
  const lines: string[] = [];
  const logger = pino({ level: 'info' }, { write: (l: string) => lines.push(l) });
  return { calls, lines, self, logger, redactor: new Redactor() };
}

describe('TrackedToken', () => {
  it('reports a token expiring within the warning margin once, and its expiry', async () => {
    const r = rig();
    const exp = (NOW + 2 * DAY) / 1000;
    const token = new TrackedToken(
      { token: { kind: 'inline', value: jwt(exp) }, tokenExpiryWarningMs: 3 * DAY },
      { ...r, wallClock: () => NOW },
    );
    expect(await token.get()).toBe(jwt(exp));
    await token.get();
    await token.renew();
    expect(r.calls).toEqual([
      ['expiring', false],
      ['expiry', exp],
      ['expiring', true],
    ]);
    const warnings = r.lines.filter((l) => l.includes('token expires soon'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).not.toContain(jwt(exp));
    expect(r.redactor.redact(`echoed ${jwt(exp)}`)).not.toContain(jwt(exp));
  });

  it('does not warn while the expiry is beyond the margin, or unknown', async () => {
    const r = rig();
    const token = new TrackedToken(
      { token: { kind: 'inline', value: 'opaque-token' }, tokenExpiryWarningMs: DAY },
      { ...r, wallClock: () => NOW },
    );
    await token.get();
    expect(r.calls).toEqual([
      ['expiring', false],
      ['expiry', undefined],
    ]);
    expect(r.lines.filter((l) => l.includes('expires soon'))).toEqual([]);
  });
});
