import { describe, expect, it } from 'vitest';
import { faultCases, isExpected, plantModel } from '../../../bench/pager/scenarios.ts';

describe("the bench's fault cases", () => {
  const cases = faultCases(
    plantModel(7, { sites: 1, linesPerSite: 2, stationsPerLine: 10, measurementNames: 20, unitsPerHour: 30 }),
    { faultMs: 0, chartName: 'board_temp', lineFinalYield: 0.95 },
  );
  const byName = (name: string) => cases.find((c) => c.name === name) ?? { expected: [] };

  it('take any yield alert for a yield fault and any retry alert for a retry fault, as the rules change', () => {
    for (const alert of ['StationLineLowFinalYield', 'LineYieldBelowControlLimit', 'LineFinalYieldCusum'])
      expect(isExpected(byName('yield 0.95 -> 0.80'), alert)).toBe(true);
    expect(isExpected(byName('retry 0.10 -> 0.20'), 'StationHighRetryRatio')).toBe(true);
    expect(isExpected(byName('retry 0.10 -> 0.20'), 'StationRetryCusum')).toBe(true);
    expect(isExpected(byName('retry 0.10 -> 0.20'), 'StationLineLowFinalYield')).toBe(false);
    expect(isExpected(byName('yield -5 points'), 'MeasurementShiftDetected')).toBe(false);
  });

  it('take only the named alerts for the other faults', () => {
    expect(isExpected(byName('silent station'), 'StationSilent')).toBe(true);
    expect(isExpected(byName('silent station'), 'StationSilentish')).toBe(false);
    expect(isExpected(byName('exporter stopped'), 'StationExporterDown')).toBe(true);
  });
});
