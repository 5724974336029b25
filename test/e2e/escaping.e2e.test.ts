import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseExposition } from '../helpers/exposition.ts';
import { dataExposition, type Harness, startHarness } from '../helpers/harness.ts';
import { checkMetrics, promtoolPath } from '../helpers/promtool.ts';

let h: Harness;
let text: string;

beforeAll(async () => {
  h = await startHarness({
    sim: { exoticNames: true, scale: { sites: 1, linesPerSite: 2, stationsPerLine: 4 } },
    config: { windows: ['1h'], units: { enabled: false }, measurements: { enabled: false } },
  });
  await h.exporter.scheduler.pollOnce();
  text = await dataExposition(h.exporter);
});
afterAll(() => h.close());

describe('label values with quotes, backslashes, newlines and non-ASCII', () => {
  it('round-trips every station name through the exposition', () => {
    const { plant } = h.sim.sim;
    const names = new Map(
      plant.sites.flatMap((s) =>
        s.lines.flatMap((l) =>
          l.elements.flatMap((e) =>
            (e.type === 'group' ? e.stations : [e]).map((st) => [st.id, st.name] as const),
          ),
        ),
      ),
    );
    expect([...names.values()].some((n) => /["\\\n]/.test(n) && /[^ -~\s]/.test(n))).toBe(true);
    const info = parseExposition(text).filter((s) => s.name === 'station_info');
    expect(info).toHaveLength(names.size);
    for (const s of info) expect(s.labels.station).toBe(names.get(s.labels.station_id ?? ''));
  });

  it('keeps one sample per line (newlines escaped)', () => {
    for (const line of text.split('\n'))
      expect(line === '' || /^(# |[a-z_]+(\{.*\})? \S+$)/.test(line)).toBe(true);
  });

  it.skipIf(!promtoolPath() && !process.env.CI)('passes promtool check metrics', () => {
    expect(checkMetrics(text).output).toBe('');
  });
});
