import { describe, expect, it } from 'vitest';
import { MIN_SECRET_LENGTH, REDACTED, Redactor } from '../../src/util/redact.ts';

describe('Redactor', () => {
  it('masks every occurrence of a known secret, in every form it takes in output', () => {
    const r = new Redactor();
    const token = 'tok"en&<1234>/é';
    r.add(token);
    const json = JSON.stringify({ err: `echo ${token}` });
    expect(r.redact(`a ${token} b ${token}`)).toBe(`a ${REDACTED} b ${REDACTED}`);
    expect(r.redact(json)).not.toContain('1234');
    expect(r.redact('tok&quot;en&amp;&lt;1234&gt;/é')).toBe(REDACTED);
    expect(r.redact(`?t=${encodeURIComponent(token)}`)).toBe(`?t=${REDACTED}`);
  });

  it('masks Bearer followed by a credential, whoever the token belongs to', () => {
    const r = new Redactor();
    expect(r.redact('HTTP 500 (internal: Authorization: Bearer eyJhbGc.x-y_z=)')).toBe(
      `HTTP 500 (internal: Authorization: ${'Bearer'} ${REDACTED})`,
    );
    expect(r.redact('{"authorization":"bearer s3cr3t"}')).toBe(`{"authorization":"bearer ${REDACTED}"}`);
    expect(r.redact('BEARER\tabcdefghijklmnopq')).toBe(`BEARER\t${REDACTED}`);
    // Prose about bearer tokens stays readable.
    expect(r.redact('Bearer token has expired')).toBe('Bearer token has expired');
    expect(r.redact('curl -H "Authorization: Bearer <token>"')).toBe(
      'curl -H "Authorization: Bearer <token>"',
    );
  });

  it('learns secrets as they come (a rotated token) and keeps the old ones masked', () => {
    const r = new Redactor();
    r.add('first-token');
    r.add(' second-token\n');
    r.add('first-token');
    expect(r.size).toBe(2);
    expect(r.redact('first-token second-token')).toBe(`${REDACTED} ${REDACTED}`);
  });

  it('masks a secret that contains another whole', () => {
    const r = new Redactor();
    r.add('abcd');
    r.add('xxabcdxx');
    expect(r.redact('xxabcdxx abcd')).toBe(`${REDACTED} ${REDACTED}`);
  });

  it('ignores secrets too short to mask without mangling every line', () => {
    const r = new Redactor();
    r.add('a'.repeat(MIN_SECRET_LENGTH - 1));
    r.add(undefined);
    r.add('   ');
    expect(r.size).toBe(0);
    expect(r.redact('aaa')).toBe('aaa');
  });
});
