/** Self-metrics of the web config, read from its source at scrape time, like Prometheus' own config_last_reload_* pair. */
import { Gauge, type Registry } from '../../exposition/client.ts';
import type { WebConfigStatus } from './watch.ts';

/** Registers the web config gauges on `registry`; `status` absent: the series exist without values (for the reference). */
export function registerWebConfigMetrics(registry: Registry, status?: () => WebConfigStatus): void {
  new Gauge({
    name: 'station_exporter_web_config_last_reload_successful',
    help: 'Whether the last re-read of --web.config.file succeeded (1) or failed and the last good one is kept (0).',
    registers: [registry],
    collect() {
      if (status) this.set(status().lastReloadOk ? 1 : 0);
    },
  });
  new Gauge({
    name: 'station_exporter_web_config_last_reload_success_timestamp_seconds',
    help: 'Time the web config in force was loaded from --web.config.file (exporter clock).',
    registers: [registry],
    collect() {
      if (status) this.set(status().lastSuccessMs / 1000);
    },
  });
}
