import { describe, expect, it } from 'vitest';
import { Registry } from '../../src/exposition/client.ts';
import { registerConnectionMetrics } from '../../src/server/connection-metrics.ts';
import type { CloseReason, ConnectionStats } from '../../src/server/connections.ts';

describe('registerConnectionMetrics', () => {
  it('reads the open connections and the closes by reason at scrape time', async () => {
    const closed: Partial<Record<CloseReason, number>> = { write_timeout: 2, evicted_stalled: 5 };
    const stats: ConnectionStats = {
      open: () => 7,
      closed: (reason) => closed[reason] ?? 0,
      stalled: () => 0,
    };
    const registry = new Registry();
    registerConnectionMetrics(registry, stats);
    closed.write_timeout = 3;
    const text = await registry.metrics();
    expect(text).toContain('station_exporter_http_connections_open 7');
    expect(text).toContain('station_exporter_http_connections_closed_total{reason="write_timeout"} 3');
    expect(text).toContain('station_exporter_http_connections_closed_total{reason="evicted_stalled"} 5');
    expect(text).toContain('station_exporter_http_connections_closed_total{reason="refused"} 0');
  });
});
