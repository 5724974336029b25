import { parseJson } from './body.ts';

/**
 * The `exp` claim of a JWT in epoch seconds, unverified (only to warn before expiry; verifying
 * needs the issuer's key); `undefined` when not a JWT or without a numeric `exp`.
 */
export function jwtExpiry(token: string): number | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts[1]) return undefined;
  const claims = parseJson(Buffer.from(parts[1], 'base64url').toString('utf8'));
  if (!claims || typeof claims !== 'object' || !('exp' in claims)) return undefined;
  const exp = (claims as { exp: unknown }).exp;
  return typeof exp === 'number' && Number.isFinite(exp) ? exp : undefined;
}
