/**
 * Tests that need a real component skip outside CI when it is missing; under CI=true they
 * must fail instead. This test makes that explicit: in CI every component is required.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { alertmanagerPath } from './helpers/alertmanager-server.ts';
import { chromiumPath } from './helpers/chromium.ts';
import { prometheusPath } from './helpers/prometheus.ts';
import { promtoolPath } from './helpers/promtool.ts';

const COMPONENTS: ReadonlyArray<[string, () => string | undefined]> = [
  ['promtool', promtoolPath],
  ['prometheus', prometheusPath],
  ['alertmanager', alertmanagerPath],
  ['chromium', chromiumPath],
  // The image build and run (test/deploy/image.e2e.test.ts).
  ...['buildah', 'podman', 'runc', 'mmdebstrap', 'podman-compose', 'docker-compose'].map(
    (tool): [string, () => string | undefined] => [tool, () => which(tool)],
  ),
];

function which(tool: string): string | undefined {
  const r = spawnSync('sh', ['-c', 'command -v "$1"', 'sh', tool], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

describe.runIf(process.env.CI)('real components under CI', () => {
  it.each(COMPONENTS)('%s is installed', (_name, find) => {
    expect(find()).toBeTypeOf('string');
  });
});
