import { describe, expect, it } from 'vitest';
import { SortedColumns } from '../../src/records/columns.ts';
import { RecordGroups } from '../../src/records/groups.ts';
import { mergeRows } from '../helpers/rows.ts';

describe('RecordGroups', () => {
  it("reads each target's records as one batch, in the order they came, targets by first record", () => {
    const records = [
      { time: 3, serial: 'a', target: 'x', v: 1 },
      { time: 1, serial: 'b', target: 'y', v: 2 },
      { time: 2, serial: 'c', target: 'x', v: 3 },
      { time: 2, serial: 'd', target: 'z', v: 4 },
      { time: 5, serial: 'e', target: 'y', v: 5 },
      { time: 0, serial: 'f', target: 'x', v: 6 },
    ];
    const seen: number[] = [];
    const groups = new RecordGroups(records, {
      target: (r, i) => {
        seen.push(i);
        return r.target;
      },
      value: (i, c) => (c === 0 ? records[i]!.v : Number.NaN),
    });
    expect(seen).toEqual([0, 1, 2, 3, 4, 5]);
    expect(groups.targets).toEqual(['x', 'y', 'z']);
    const read = groups.targets.map((_, g) => {
      groups.select(g);
      return Array.from({ length: groups.length }, (_, j) => [
        groups.time(j),
        groups.serial(j),
        groups.value(j, 0),
        groups.record(j).target,
      ]);
    });
    expect(read).toEqual([
      [
        [3, 'a', 1, 'x'],
        [2, 'c', 3, 'x'],
        [0, 'f', 6, 'x'],
      ],
      [
        [1, 'b', 2, 'y'],
        [5, 'e', 5, 'y'],
      ],
      [[2, 'd', 4, 'z']],
    ]);
  });

  it("merges each group into its target's columns and names the target of each new record", () => {
    const columns = { x: new SortedColumns(1, 1), y: new SortedColumns(1, 1) };
    mergeRows(columns.x, [{ time: 1, serial: 'a', values: [1] }]);
    const records = [
      { time: 1, serial: 'a', target: 'x' as const, v: 1 },
      { time: 2, serial: 'b', target: 'y' as const, v: 2 },
      { time: 3, serial: 'c', target: 'x' as const, v: 3 },
    ];
    const groups = new RecordGroups(records, {
      target: (r) => r.target,
      value: (i) => records[i]!.v,
    });
    const news: string[] = [];
    const added = groups.mergeInto(
      (t) => columns[t],
      (t, r) => news.push(`${t}:${r.serial}`),
    );
    // x held 'a' already.
    expect(added).toBe(2);
    expect(news).toEqual(['x:c', 'y:b']);
    expect([columns.x.length, columns.y.length]).toEqual([2, 1]);
  });

  it('has no groups for no records', () => {
    const groups = new RecordGroups([] as { time: number; serial: string }[], {
      target: () => 'x',
      value: () => 0,
    });
    expect(groups.targets).toEqual([]);
    expect(groups.length).toBe(0);
  });
});
