import { describe, expect, it } from 'vitest';
import type { FiringSpan } from '../../../bench/pager/alert-state.ts';
import { AlertmanagerModel } from '../../../bench/pager/dispatch.ts';
import {
  durationMs,
  matchRoutes,
  parseAlertmanagerConfig,
  parseMatcher,
} from '../../../bench/pager/route.ts';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const CONFIG = parseAlertmanagerConfig(`
route:
  group_by: [alertname, site, line]
  group_wait: 30s
  group_interval: 5m
  repeat_interval: 4h
  receiver: production
  routes:
    - matchers: ['alertname =~ "Exp.*"']
      group_by: [alertname, instance]
      receiver: ops
inhibit_rules:
  - source_matchers: [alertname = "ExpDown"]
    target_matchers: ['alertname =~ "Yield|Shift"']
    equal: [instance]
  - source_matchers: [severity = "critical"]
    target_matchers: [severity = "warning"]
    equal: [alertname, line]
receivers:
  - name: production
    webhook_configs: [{ url: 'http://x', send_resolved: true }]
  - name: ops
    webhook_configs: [{ url: 'http://y', send_resolved: true }]
`);

const span = (labels: Record<string, string>, firedAt: number, resolvedAt?: number): FiringSpan =>
  resolvedAt === undefined ? { labels, firedAt } : { labels, firedAt, resolvedAt };
const run = (spans: FiringSpan[], end: number) =>
  new AlertmanagerModel(CONFIG, spans).run(end).map((n) => ({
    at: n.at,
    receiver: n.receiver,
    firing: n.firing.map((l) => l.station ?? l.alertname),
    resolved: n.resolved.map((l) => l.station ?? l.alertname),
  }));

describe('Alertmanager model', () => {
  it('parses durations, matchers and routes', () => {
    expect(durationMs('1h30m')).toBe(90 * M);
    expect(parseMatcher('alertname =~ "A|B"')).toEqual({ name: 'alertname', op: '=~', value: 'A|B' });
    expect(parseMatcher('severity = critical')).toEqual({ name: 'severity', op: '=', value: 'critical' });
    expect(matchRoutes(CONFIG.route, { alertname: 'ExpDown' }).map((r) => r.receiver)).toEqual(['ops']);
    expect(matchRoutes(CONFIG.route, { alertname: 'Yield' }).map((r) => r.receiver)).toEqual(['production']);
  });

  it('group_wait, group_interval, repeat_interval and the resolved notification', () => {
    const l = { alertname: 'Yield', site: 's', line: 'L1', severity: 'warning' };
    const out = run(
      [span({ ...l, station: 'a' }, 10 * M, 9 * H), span({ ...l, station: 'b' }, 12 * M, 9 * H)],
      10 * H,
    );
    expect(out).toEqual([
      // a: group created at 10m, first flush at 10m30s
      { at: 10 * M + 30 * S, receiver: 'production', firing: ['a'], resolved: [] },
      // b joins: notified at the next group_interval tick
      { at: 15 * M + 30 * S, receiver: 'production', firing: ['a', 'b'], resolved: [] },
      // nothing new: repeated once the 4h repeat_interval has passed (at the first tick after it)
      { at: 4 * H + 20 * M + 30 * S, receiver: 'production', firing: ['a', 'b'], resolved: [] },
      { at: 8 * H + 25 * M + 30 * S, receiver: 'production', firing: ['a', 'b'], resolved: [] },
      // resolved at 9h: the next tick sends the resolution, then the group is gone
      { at: 9 * H + 0 * M + 30 * S, receiver: 'production', firing: [], resolved: ['a', 'b'] },
    ]);
  });

  it('a group recreated after it emptied waits group_wait again', () => {
    const l = { alertname: 'Yield', site: 's', line: 'L1' };
    const out = run([span(l, 0, 10 * M), span(l, 60 * M)], 2 * H);
    expect(out.map((n) => [n.at / S, n.firing.length, n.resolved.length])).toEqual([
      [30, 1, 0],
      [630, 0, 1],
      [3630, 1, 0],
    ]);
  });

  it('an alert that fires and resolves between two flushes is sent as resolved beside a firing one (DedupStage)', () => {
    const l = { alertname: 'Yield', site: 's', line: 'L1' };
    const out = run([span({ ...l, station: 'a' }, 0), span({ ...l, station: 'b' }, 1 * M, 3 * M)], 20 * M);
    expect(out.map((n) => [n.at / S, n.firing, n.resolved])).toEqual([
      [30, ['a'], []],
      [330, ['a'], ['b']],
    ]);
  });

  it('inhibition: the exporter being down mutes the station alerts of that instance', () => {
    const down = span({ alertname: 'ExpDown', instance: 'i1', severity: 'critical' }, 0, 2 * H);
    const muted = span({ alertname: 'Yield', site: 's', line: 'L1', instance: 'i1' }, 5 * M, 30 * M);
    const other = span({ alertname: 'Yield', site: 's', line: 'L2', instance: 'i2' }, 5 * M);
    const out = run([down, muted, other], 40 * M);
    expect(out.map((n) => [n.receiver, n.firing])).toEqual([
      ['ops', ['ExpDown']],
      ['production', ['Yield']],
    ]);
  });

  it('an alert that fires and resolves between two flushes of an otherwise empty group notifies nothing', () => {
    const l = { alertname: 'Yield', site: 's', line: 'L1' };
    const out = run(
      [span({ ...l, station: 'a' }, 0, 2 * M), span({ ...l, station: 'b' }, 3 * M, 4 * M)],
      20 * M,
    );
    // a: fired, notified at 30s, resolved at 2m; b joins the group and resolves before the 5m30s
    // flush, which sends the resolution of a and b (the receiver saw a firing).
    expect(out.map((n) => [n.at / S, n.firing, n.resolved])).toEqual([
      [30, ['a'], []],
      [330, [], ['a', 'b']],
    ]);
  });

  it('inhibition needs the equal labels to agree', () => {
    const crit = span({ alertname: 'Ppk', line: 'L1', severity: 'critical' }, 0);
    const warnSame = span({ alertname: 'Ppk', line: 'L1', severity: 'warning', station: 'w1' }, 0);
    const warnOther = span({ alertname: 'Ppk', line: 'L2', severity: 'warning', station: 'w2' }, 0);
    const out = new AlertmanagerModel(CONFIG, [crit, warnSame, warnOther]).run(M);
    expect(out.flatMap((n) => n.firing.map((l) => `${l.line}/${l.severity}`)).sort()).toEqual([
      'L1/critical',
      'L2/warning',
    ]);
  });
});
