/**
 * Writes the generated dashboards to `grafana/dashboards/` (run by `npm run gen`, or directly
 * with `npx tsx grafana/build.ts`). Files of dashboards that no longer exist are removed.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderDashboards } from './src/index.ts';

/** Directory of the committed dashboard JSON. */
export const DASHBOARD_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'dashboards');

/** Regenerates every dashboard file under `dir`; returns the file names written. */
export function writeDashboards(dir: string = DASHBOARD_DIR): string[] {
  const rendered = renderDashboards();
  mkdirSync(dir, { recursive: true });
  for (const file of readdirSync(dir)) {
    if (file.endsWith('.json') && !rendered.has(file)) rmSync(path.join(dir, file));
  }
  for (const [file, text] of rendered) writeFileSync(path.join(dir, file), text);
  return [...rendered.keys()];
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const files = writeDashboards();
  console.log(`wrote ${files.map((f) => `grafana/dashboards/${f}`).join(', ')}`);
}
