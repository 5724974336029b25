import { describe, expect, it } from 'vitest';
import { RecentErrors } from '../../src/app/recent-errors.ts';
import { buildStatusModel, OfferedView, type SummaryWindows } from '../../src/app/status-model.ts';

describe('status model', () => {
  it('carries the summary windows the summary job offers, none before it does', () => {
    const windows: SummaryWindows = new OfferedView([]);
    const sources = {
      version: '1',
      upstream: 'u',
      wallClock: () => 0,
      status: () => [],
      topology: () => undefined,
      ready: () => true,
      lastUnitTime: () => undefined,
      errors: new RecentErrors(10, () => 0),
      windows: windows.read,
    };
    expect(buildStatusModel(sources).windows).toEqual([]);
    const progress = [
      { window: '15m', complete: true, levelsComplete: ['station'] },
      { window: '24h', complete: false, levelsComplete: [] },
    ];
    windows.offer(() => progress);
    expect(buildStatusModel(sources).windows).toEqual(progress);
  });
});
