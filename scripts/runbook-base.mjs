#!/usr/bin/env node
/**
 * Points every alert's runbook_url at another copy of docs/runbook.md:
 *   node scripts/runbook-base.mjs BASE [RULE_FILE ...]
 * Each `runbook_url: <anything>#<anchor>` becomes `runbook_url: BASE#<anchor>`; the anchors are
 * kept. Without files it rewrites the shipped prometheus/rules/station-exporter.rules.yml.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const RUNBOOK_URL = /^(\s*runbook_url:\s*)(\S+?)#([\w-]+)\s*$/gm;

/** `text` with every runbook_url's base replaced by `base`; and how many were replaced. */
export function rewriteRunbookBase(text, base) {
  let count = 0;
  const out = text.replace(RUNBOOK_URL, (_line, head, _old, anchor) => {
    count++;
    return `${head}${base}#${anchor}`;
  });
  return { text: out, count };
}

function main(argv) {
  const [base, ...files] = argv;
  if (!base || base === '-h' || base === '--help' || !/^https?:\/\/\S+$/.test(base) || base.includes('#')) {
    process.stderr.write(
      'usage: node scripts/runbook-base.mjs BASE_URL [RULE_FILE ...]\n  BASE_URL: http(s), without a #fragment\n',
    );
    return base === '-h' || base === '--help' ? 0 : 2;
  }
  const targets = files.length > 0 ? files : ['prometheus/rules/station-exporter.rules.yml'];
  for (const file of targets) {
    const { text, count } = rewriteRunbookBase(readFileSync(file, 'utf8'), base);
    writeFileSync(file, text);
    process.stdout.write(`${file}: ${count} runbook_url set to ${base}#...\n`);
  }
  return 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = main(process.argv.slice(2));
