/** `npm run gen`: regenerates every generated document from the code. */
import { readFileSync, writeFileSync } from 'node:fs';
import { writeDashboards } from '../grafana/build.ts';
import { renderConfigReference } from '../src/config/reference.ts';
import { METRICS_DOC, updateSections } from '../src/reference/sections.ts';
import { PROMETHEUS_RULE_PATH, renderPrometheusRule } from './prometheusrule.ts';

writeFileSync(METRICS_DOC, updateSections(readFileSync(METRICS_DOC, 'utf8')));
writeFileSync('docs/config.md', renderConfigReference());
writeFileSync(PROMETHEUS_RULE_PATH, renderPrometheusRule('prometheus/rules'));
const dashboards = writeDashboards();
console.log(
  `wrote ${METRICS_DOC} (generated sections), docs/config.md, ${PROMETHEUS_RULE_PATH} and ${dashboards.length} dashboards`,
);
