/** The exporter against a simulator that checks real JWTs: expiry metric, and 401 once expired. */
import { describe, expect, it } from 'vitest';
import { issueJwt } from '../../src/simulator/jwt-issuer.ts';
import { FIXED_NOW, startHarness } from '../helpers/harness.ts';

const SECRET = 'jwt-exporter-test-secret';

describe('exporter with a simulator-issued JWT', () => {
  it('exports the token expiry, reads data while valid, and gets 401 once it has expired', async () => {
    const exp = Math.floor(FIXED_NOW / 1000) + 2 * 3600;
    const token = issueJwt(
      { sites: 'all', iatSeconds: Math.floor(FIXED_NOW / 1000), expSeconds: exp },
      SECRET,
    );
    const h = await startHarness({ sim: { jwtSecret: SECRET, tokens: {} }, upstream: { token } });
    try {
      expect(await h.exporter.scheduler.pollOnce()).toBe(true);
      const text = await (await h.exporter.app.request('/metrics')).text();
      expect(text).toContain(`\nstation_exporter_token_expiry_timestamp_seconds ${exp}\n`);
      expect(text).not.toContain(token);

      h.advance(2 * 3600 * 1000);
      expect(await h.exporter.scheduler.pollOnce()).toBe(false);
      const statuses = h.sim.sim.requests.slice(-3).map((r) => r.status);
      expect(statuses).toEqual([401, 401, 401]);
      // The registry itself: /metrics may reuse self-metrics rendered within the last second.
      const after = await h.exporter.registry.metrics();
      expect(after).toMatch(
        /station_exporter_upstream_requests_total\{endpoint="sites",status_class="4xx"\} [1-9]/,
      );
      expect(after).toContain('\nstation_exporter_upstream_up 0\n');
    } finally {
      await h.close();
    }
  });
});
