import { describe, expect, it } from 'vitest';
import { asSubqueries, loadAlerts } from '../../../bench/pager/rules.ts';

describe('recording rules inlined into the alerts', () => {
  it('turns a range over an inlined rule into a subquery at the group interval', () => {
    expect(asSubqueries('max_over_time((a / b)[7d]) >= 1.33', 60_000)).toBe(
      'max_over_time((a / b)[7d:60s]) >= 1.33',
    );
    // A range over a plain selector stays as it is.
    expect(asSubqueries('rate(x{a="b"}[5m])', 60_000)).toBe('rate(x{a="b"}[5m])');
  });

  it('gives the shipped capability alert an expression PromQL accepts: no range over parentheses', () => {
    const { alerts } = loadAlerts(['prometheus/rules/station-exporter.rules.yml'], 60_000);
    const capability = alerts.filter((a) => a.alert === 'StationMeasurementCapabilityLost');
    expect(capability.length).toBeGreaterThan(0);
    for (const a of alerts) expect(a.expr, a.alert).not.toMatch(/\)\[\d+[smhdwy]\]/);
    for (const a of capability) expect(a.expr).toMatch(/\)\[7d:60s\]/);
  });
});
