/** Self-metrics of the HTTP server's connections, read from its tracker at scrape time. */
import { Counter, Gauge, type Registry } from '../exposition/client.ts';
import { CLOSE_REASONS, type ConnectionStats } from './connections.ts';

/** Registers the connection metrics on `registry`; `stats` absent: the series exist without values (for the reference). */
export function registerConnectionMetrics(registry: Registry, stats?: ConnectionStats): void {
  new Gauge({
    name: 'station_exporter_http_connections_open',
    help: 'Connections open to the HTTP server now (at most --web.max-connections).',
    registers: [registry],
    collect() {
      if (stats) this.set(stats.open());
    },
  });
  new Counter({
    name: 'station_exporter_http_connections_closed_total',
    help:
      'Connections the HTTP server closed to enforce its limits, by reason: first_request_timeout (no request within ' +
      '--web.read-header-timeout), write_timeout (a response not written out within --web.write-timeout), ' +
      'evicted_idle and evicted_stalled (closed at --web.max-connections to make room: no request in flight, or a ' +
      'client that stopped reading its response), refused (a new connection at the cap while every open one was busy and reading).',
    labelNames: ['reason'],
    registers: [registry],
    collect() {
      if (!stats) return;
      this.reset();
      for (const reason of CLOSE_REASONS) this.inc({ reason }, stats.closed(reason));
    },
  });
}
