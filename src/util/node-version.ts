/**
 * The Node.js versions the exporter runs on (undici 8 needs 22.19; `@prometheus-io/client` declares
 * 22, 24, 26+), checked before anything else loads: an older Node would fail deep inside undici
 * with a `TypeError` naming no version. Keep it in step with `engines` in package.json.
 */

/** The supported range, as `engines` in package.json states it. */
export const SUPPORTED_NODE = '^22.19.0 || ^24.0.0 || >=26.0.0';

/** Parses `v24.11.1` or `24.11.1` into its numbers; undefined for anything else. */
function parseVersion(version: string): [number, number, number] | undefined {
  const m = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}

/** True when `version` (as `process.version` gives it) is in {@link SUPPORTED_NODE}. */
export function isSupportedNode(version: string): boolean {
  const v = parseVersion(version);
  if (v === undefined) return false;
  const [major, minor] = v;
  if (major === 22) return minor >= 19;
  return major === 24 || major >= 26;
}

/** The one line the binary prints, and exits 1 with, on an unsupported Node; undefined when supported. */
export function nodeVersionProblem(version: string): string | undefined {
  if (isSupportedNode(version)) return undefined;
  return `station-exporter: needs Node.js 22.19 or later 22.x, 24.x, or 26 or later; this is Node.js ${version}\n`;
}
