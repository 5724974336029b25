/**
 * Tests that need a real component skip outside CI when it is missing; under CI=true they
 * must fail instead. This test makes that explicit: in CI every component is required.
 */
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
];

describe.runIf(process.env.CI)('real components under CI', () => {
  it.each(COMPONENTS)('%s is installed', (_name, find) => {
    expect(find()).toBeTypeOf('string');
  });
});
