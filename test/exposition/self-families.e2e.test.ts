/**
 * The exporter's own families, pinned: every `station_exporter_*`, `process_*` and `nodejs_*`
 * family a wired exporter serves, with its type and HELP, must equal the list in
 * test/fixtures/exposition/self-families.txt. It was written from prom-client 15 and guards the
 * move to its successor @prometheus-io/client (and any later upgrade): a renamed family, a
 * changed type or HELP fails here. Regenerate only for an intended change:
 * `UPDATE_SELF_FAMILIES=1 npx vitest run test/exposition/self-families.e2e.test.ts`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { Registry } from '../../src/exposition/client.ts';
import { registerProcessMetrics } from '../../src/exposition/process-metrics.ts';
import { registryFamilies, SelfMetrics } from '../../src/exposition/selfmetrics.ts';
import { startHarness } from '../helpers/harness.ts';
import { renderFamilies } from '../helpers/render.ts';

const FIXTURE = new URL('../fixtures/exposition/self-families.txt', import.meta.url);

/** "name type HELP" per family of the exposition's own metrics, sorted. */
function ownFamilies(text: string): string[] {
  const types = new Map<string, string>();
  const helps = new Map<string, string>();
  for (const line of text.split('\n')) {
    const t = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (t) types.set(t[1]!, t[2]!);
    const h = /^# HELP (\S+) (.*)$/.exec(line);
    if (h) helps.set(h[1]!, h[2]!);
  }
  return [...types]
    .filter(([name]) => /^(station_exporter_|process_|nodejs_)/.test(name))
    .map(([name, type]) => `${name} ${type} ${helps.get(name) ?? ''}`)
    .sort();
}

describe('self-metric families', () => {
  it('are the pinned set: names, types and HELP', async () => {
    // Every self-metric family, as a wired exporter serves them after a poll, plus the process
    // and Node.js collectors the serve and once commands register.
    const h = await startHarness({ logger: pino({ level: 'silent' }) });
    let served: string[];
    try {
      await h.exporter.scheduler.pollOnce();
      served = ownFamilies(await (await h.exporter.app.request('/metrics')).text());
    } finally {
      await h.close();
    }
    const registry = new Registry();
    new SelfMetrics(registry, { version: 'v', commit: 'c', nodeVersion: 'v0', wallClock: () => 0 });
    registerProcessMetrics(registry);
    const all = ownFamilies(renderFamilies(await registryFamilies(registry), 'text'));
    const families = [...new Set([...served, ...all])].sort();
    if (process.env.UPDATE_SELF_FAMILIES) writeFileSync(FIXTURE, `${families.join('\n')}\n`);
    const pinned = readFileSync(FIXTURE, 'utf8').trimEnd().split('\n');
    expect(families).toEqual(pinned);
  });
});
