/** `npm run gen`: regenerates every generated document from the code. */
import { readFileSync, writeFileSync } from 'node:fs';
import { writeDashboards } from '../grafana/build.ts';
import { renderConfigReference } from '../src/config/reference.ts';
import { updateReadme } from '../src/docs/readme.ts';

const readme = readFileSync('README.md', 'utf8');
writeFileSync('README.md', updateReadme(readme));
writeFileSync('docs/config.md', renderConfigReference());
const dashboards = writeDashboards();
console.log(`wrote README.md (generated sections), docs/config.md and ${dashboards.length} dashboards`);
