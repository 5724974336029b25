import { describe, expect, it } from 'vitest';
import type { SummaryWindowProgress } from '../../src/collectors/collector.ts';
import { readinessText } from '../../src/server/app.ts';
import { type StatusModel, statusPage, windowProgressText } from '../../src/server/status-page.ts';

const halfway: SummaryWindowProgress[] = [
  { window: '15m', complete: true, levelsComplete: ['station', 'line'] },
  { window: '1h', complete: false, levelsComplete: ['station'] },
  { window: '24h', complete: false, levelsComplete: [] },
];

describe('readiness and the summary windows', () => {
  it('names the complete windows and the pending ones, with the levels a pending window has', () => {
    expect(windowProgressText(halfway)).toBe('windows complete: 15m; pending: 1h (station complete), 24h');
    expect(windowProgressText(halfway.map((w) => ({ ...w, complete: false, levelsComplete: [] })))).toBe(
      'windows complete: none; pending: 15m, 1h, 24h',
    );
    expect(windowProgressText(halfway.map((w) => ({ ...w, complete: true })))).toBe(
      'windows complete: 15m, 1h, 24h',
    );
    expect(windowProgressText([])).toBe('');
  });

  it('/-/ready says which windows are complete, ready or not', () => {
    const status = [{ name: 'summary', intervalMs: 60_000, polls: 0 }];
    expect(readinessText({ ready: () => true, status: () => status, windows: () => halfway })).toBe(
      'Ready\nwindows complete: 15m; pending: 1h (station complete), 24h\n',
    );
    expect(readinessText({ ready: () => false, status: () => status, windows: () => [] })).toBe(
      'Not ready: waiting for the first complete poll\n',
    );
    expect(readinessText({ ready: () => true, status: () => status })).toBe('Ready\n');
  });

  it('the status page shows the same line', () => {
    const model: StatusModel = {
      now: 0,
      version: '1',
      upstream: 'u',
      ready: true,
      refused: [],
      errors: [],
      recentErrors: [],
      collectors: [],
      windows: halfway,
    };
    expect(statusPage(model)).toContain(
      '<p id="windows">Summaries: windows complete: 15m; pending: 1h (station complete), 24h.</p>',
    );
    expect(statusPage({ ...model, windows: [] })).not.toContain('id="windows"');
  });
});
