/**
 * `limits approve`: sets `approved_by` and `approved_at` on the chosen entries, editing the YAML in
 * place so that an engineer's comments and layout stay. An entry without a reason is refused.
 */
import { readFile, rename, writeFile } from 'node:fs/promises';
import { parseDocument } from 'yaml';
import { type ChartIdentity, LimitsFileError, parseLimits } from '../../config/limits-schema.ts';
import { LimitsUsageError } from './errors.ts';
import { rfc3339 } from './file.ts';

/** One `--chart` selector: `key=value` pairs, comma-separated (keys station, metric, slot, product). */
export type ChartSelector = Readonly<Partial<Record<'station' | 'metric' | 'slot' | 'product', string>>>;

const SELECTOR_KEYS = ['station', 'metric', 'slot', 'product'] as const;

/** Parses a selector such as `metric=vcc_3v3,station=65a1f0c2e4b0a1b2c3d4e5f6`. */
export function parseSelector(text: string): ChartSelector {
  const out: Record<string, string> = {};
  for (const part of text.split(',')) {
    const eq = part.indexOf('=');
    const key = part.slice(0, eq).trim();
    if (eq < 0 || !(SELECTOR_KEYS as readonly string[]).includes(key))
      throw new Error(
        `--chart takes ${SELECTOR_KEYS.join('|')}=VALUE pairs separated by commas, got "${text}"`,
      );
    out[key] = part.slice(eq + 1).trim();
  }
  return out;
}

function matches(e: ChartIdentity, sel: ChartSelector): boolean {
  const same = (want: string | undefined, have: string | null) => want === undefined || want === (have ?? '');
  return (
    (sel.station === undefined || sel.station.toLowerCase() === e.station.toLowerCase()) &&
    same(sel.metric, e.metric) &&
    same(sel.slot, e.slot) &&
    same(sel.product, e.product)
  );
}

/** What `limits approve` does. */
export interface ApproveOptions {
  readonly file: string;
  readonly by: string;
  /** Set as every chosen entry's reason; without it each entry needs its own. */
  readonly reason?: string;
  /** Entries matching any selector; none: every entry. */
  readonly selectors: readonly ChartSelector[];
  readonly nowMs: number;
}

/** The indexes of the entries approved, or a {@link LimitsFileError}. */
export async function approveLimits(opts: ApproveOptions): Promise<number[]> {
  const text = await readFile(opts.file, 'utf8');
  const file = parseLimits(text, opts.file);
  const chosen = file.charts.flatMap((e, i) =>
    opts.selectors.length === 0 || opts.selectors.some((s) => matches(e, s)) ? [i] : [],
  );
  if (chosen.length === 0) throw new LimitsUsageError(`${opts.file}: no entry matches the --chart selectors`);
  const reason = opts.reason?.trim();
  const refused = chosen.filter((i) => !reason && !file.charts[i]!.reason);
  if (refused.length > 0)
    throw new LimitsFileError(opts.file, [
      `refused, no reason: ${refused.map((i) => `charts[${i}].reason`).join(', ')} (give --reason or write one)`,
    ]);
  // The loader accepted the text, so it parses; edited as a document to keep comments and layout.
  const doc = parseDocument(text);
  const at = rfc3339(opts.nowMs);
  for (const i of chosen) {
    if (reason) doc.setIn(['charts', i, 'reason'], reason);
    doc.setIn(['charts', i, 'approved_by'], opts.by);
    doc.setIn(['charts', i, 'approved_at'], at);
  }
  const edited = doc.toString({ lineWidth: 0 });
  // What is written must load: the exporter's loader checks it first.
  parseLimits(edited, opts.file);
  // Written aside and moved into place: a reader never sees half a file.
  const tmp = `${opts.file}.tmp-${process.pid}`;
  await writeFile(tmp, edited);
  await rename(tmp, opts.file);
  return chosen;
}
