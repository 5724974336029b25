#!/usr/bin/env node
// Runs the compiled build in dist/, so a start costs no transpiling. `npm ci` builds it (prepare),
// `npm start` rebuilds it when src/ changed, and the published package ships it.
import { existsSync } from 'node:fs';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write('station-exporter: dist/ is missing; run `npm run build` first\n');
  process.exit(1);
}
await import(cli.href);
