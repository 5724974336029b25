import { describe, expect, it } from 'vitest';
import { jwtExpiry } from '../../src/upstream/jwt.ts';

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

describe('jwtExpiry', () => {
  it('reads exp without verifying the signature', () => {
    expect(jwtExpiry(`${b64({ alg: 'HS256' })}.${b64({ sub: 'x', exp: 1893456000 })}.sig`)).toBe(1893456000);
  });
  it('is undefined for opaque tokens, missing or non-numeric exp', () => {
    expect(jwtExpiry('demo-token')).toBeUndefined();
    expect(jwtExpiry(`${b64({})}.${b64({ sub: 'x' })}.s`)).toBeUndefined();
    expect(jwtExpiry(`${b64({})}.${b64({ exp: 'soon' })}.s`)).toBeUndefined();
    expect(jwtExpiry('a.!!!.c')).toBeUndefined();
  });
});
