/** Number formatting for the benches' rows and details. */
import { readFileSync, writeFileSync } from 'node:fs';

/** `12.3 MB`, `45.6 kB` or `789 B` (decimal units, as network traffic is usually counted). */
export function bytes(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)} MB`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)} kB`;
  return `${Math.round(n)} B`;
}

/** Binary megabytes, as memory is usually counted. */
export function mib(n: number): string {
  return `${(n / 2 ** 20).toFixed(0)} MiB`;
}

/** `850 ms` below ten seconds, `12.3 s` above. */
export function ms(n: number): string {
  if (n >= 10_000) return `${(n / 1000).toFixed(1)} s`;
  if (n >= 100) return `${n.toFixed(0)} ms`;
  return `${n.toFixed(1)} ms`;
}

/** Thousands separated by commas. */
export function count(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** `3.2 %` */
export function percent(ratio: number): string {
  return `${(ratio * 100).toFixed(ratio < 0.01 ? 2 : 1)} %`;
}

/** The text between `start` and `end` (exclusive of both) in `file`, or undefined when absent. */
export function readSection(file: URL, start: string, end: string): string | undefined {
  const text = readFileSync(file, 'utf8');
  const i = text.indexOf(start);
  const j = text.indexOf(end);
  return i >= 0 && j > i ? text.slice(i + start.length, j) : undefined;
}

/**
 * `npm run bench:spc`'s markers in bench/RESULTS.md. Every other bench writes bench/results/NAME.json
 * through bench/shared/results.ts; this one stays until bench:spc does too, since RESULTS.md is
 * generated and a section written into it is lost at the next generation.
 */
export const SPC_BUDGET_SECTION = {
  start: '<!-- BEGIN SPC BUDGET (bench:spc) -->',
  end: '<!-- END SPC BUDGET -->',
} as const;

/**
 * Replaces the section `section` (which starts with `start` and ends with `end`) in `file`, or
 * appends it when the file has none (bench:spc's, until it writes a results file).
 */
export function writeSection(file: URL, section: string, start: string, end: string): void {
  const text = readFileSync(file, 'utf8');
  const i = text.indexOf(start);
  const j = text.indexOf(end);
  writeFileSync(
    file,
    i >= 0 && j > i
      ? text.slice(0, i) + section + text.slice(j + end.length)
      : `${text.trimEnd()}\n\n${section}\n`,
  );
}
