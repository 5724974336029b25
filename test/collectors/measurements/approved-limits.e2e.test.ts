/**
 * The limits' source series of approved and rolling charts pass `promtool check metrics`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ControlCharts } from '../../../src/collectors/measurements/control.ts';
import { MeasurementStore } from '../../../src/collectors/measurements/store.ts';
import { renderFamiliesToBuffer } from '../../../src/exposition/render.ts';
import { plantOf, topologyOf } from '../../helpers/fake-client.ts';
import { jobContext } from '../../helpers/job-context.ts';
import { checkMetrics, promtoolPath } from '../../helpers/promtool.ts';

const MIN = 60_000;
const NOW = Date.parse('2026-03-01T12:00:00Z');
const plant = plantOf([2]);
const [A, B] = (plant.lines[0]?.elements ?? []).map((e) => e.id) as [string, string];

describe('approved limits exposition', () => {
  it.skipIf(!promtoolPath() && !process.env.CI)('passes promtool check metrics', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'limits-e2e-'));
    try {
      const file = join(dir, 'limits.yaml');
      writeFileSync(
        file,
        `version: 1\ncharts:\n  - station: "${A}"\n    metric: vbat\n    center: 10\n    sigma: 0.1\n    ucl: 10.3\n    lcl: 9.7\n` +
          '    excluded:\n      - { at: 2026-02-28T08:00:00Z, cause: "fixture \\"2\\" swapped" }\n' +
          '    approved_by: j.doe\n    approved_at: 2026-03-01T09:00:00Z\n    reason: study\n',
      );
      const ctx = jobContext({
        windows: ['1h'],
        measurements: {
          enabled: true,
          names: ['vbat'],
          control: { names: ['vbat'], baseline: { rolling: '2h' }, limits_file: file },
        },
      });
      const store = new MeasurementStore();
      const charts = new ControlCharts(ctx, store);
      await charts.refreshLimits();
      const records = [A, B].flatMap((stationId) =>
        Array.from({ length: 180 }, (_, i) => ({
          stationId,
          slot: null,
          serial: `SN${i}`,
          time: NOW - (180 - i) * MIN,
          name: 'vbat',
          raw: '',
          value: 10 + 0.1 * Math.sin(i),
          unit: 'V',
          type: 'float',
          upper: 12,
          lower: 8,
          mode: null,
        })),
      );
      store.add(records);
      charts.retainFrom(NOW, NOW - 60 * MIN);
      const families = await charts.families(topologyOf([plant]), { nowMs: NOW, complete: true });
      // promtool reads the Prometheus text format (OpenMetrics escapes quotes in HELP, which it refuses).
      const text = renderFamiliesToBuffer(families, 'text').toString('utf8');
      expect(text).toContain('source="approved"');
      expect(text).toContain('source="rolling"');
      expect(text).toContain('cause="fixture \\"2\\" swapped"');
      expect(checkMetrics(text)).toEqual({ ok: true, output: '' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
