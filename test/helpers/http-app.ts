/**
 * The exporter's HTTP app with no collectors behind it, for tests of the HTTP server: /metrics
 * serves what `cache` holds (default nothing), every probe answers ready.
 */
import { ExpositionCache } from '../../src/exposition/cache.ts';
import { Registry } from '../../src/exposition/client.ts';
import { SelfMetrics } from '../../src/exposition/selfmetrics.ts';
import { createApp } from '../../src/server/app.ts';

export function exporterApp(cache: ExpositionCache = new ExpositionCache()): ReturnType<typeof createApp> {
  const registry = new Registry();
  const self = new SelfMetrics(registry, { version: '9.9.9', wallClock: () => 0 });
  return createApp({
    cache,
    registry,
    self,
    version: '9.9.9',
    status: () => [],
    ready: () => true,
    upstream: 'https://upstream.example',
  });
}
