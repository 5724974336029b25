/**
 * Fetches the sites hierarchy. A configured site answered 403 or 404 is reported missing; any
 * other failure fails discovery, so the previous topology stays in use.
 */
import type { UpstreamClient } from '../../upstream/client.ts';
import { UpstreamError } from '../../upstream/errors.ts';
import type { Site } from '../../upstream/types.ts';

/** Sites found, and configured site ids the token cannot see. */
export interface Discovery {
  readonly sites: Site[];
  readonly missingSiteIds: string[];
  /** Requests sent. */
  readonly requests: number;
}

/** Discovers sites; `siteIds` empty means all accessible sites. */
export async function discoverSites(
  client: UpstreamClient,
  siteIds: readonly string[],
  signal?: AbortSignal,
): Promise<Discovery> {
  if (siteIds.length === 0) {
    return { sites: (await client.listSites(signal)).records, missingSiteIds: [], requests: 1 };
  }
  const results = await Promise.all(
    siteIds.map(async (id) => {
      try {
        // Some deployments may ignore the path id; keep only the site that was asked for.
        return (await client.getSite(id, signal)).records.filter(
          (s) => s.id.toLowerCase() === id.toLowerCase(),
        );
      } catch (err) {
        if (err instanceof UpstreamError && (err.status === 403 || err.status === 404)) return undefined;
        throw err;
      }
    }),
  );
  const sites: Site[] = [];
  const missingSiteIds: string[] = [];
  results.forEach((r, i) => {
    if (r === undefined || r.length === 0) missingSiteIds.push(siteIds[i] ?? '');
    else sites.push(...r);
  });
  return { sites, missingSiteIds, requests: siteIds.length };
}
