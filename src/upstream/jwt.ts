import { parseJson } from './body.ts';

/**
 * Reads the `exp` claim of a JWT without verifying it: the exporter only wants to warn
 * before the token expires, and verification would need the issuer's key.
 * Returns epoch seconds, or `undefined` when the token is not a JWT or has no numeric `exp`.
 */
export function jwtExpiry(token: string): number | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts[1]) return undefined;
  const claims = parseJson(Buffer.from(parts[1], 'base64url').toString('utf8'));
  if (!claims || typeof claims !== 'object' || !('exp' in claims)) return undefined;
  const exp = (claims as { exp: unknown }).exp;
  return typeof exp === 'number' && Number.isFinite(exp) ? exp : undefined;
}
