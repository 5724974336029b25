/** Number formatting for the results table, and the sections of bench/RESULTS.md. */
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

/** A section of bench/RESULTS.md that one script owns, between its two markers. */
export interface OwnedSection {
  readonly start: string;
  readonly end: string;
}

/** `npm run bench:load200`'s section. */
export const LOAD200_SECTION: OwnedSection = { start: '<!-- load200:start -->', end: '<!-- load200:end -->' };
/** `npm run bench:spc`'s section. */
export const SPC_BUDGET_SECTION: OwnedSection = {
  start: '<!-- BEGIN SPC BUDGET (bench:spc) -->',
  end: '<!-- END SPC BUDGET -->',
};
/** Runs recorded by hand, session by session (benches run one at a time, partial runs, misses). */
const SESSIONS_SECTION: OwnedSection = { start: '<!-- sessions:start -->', end: '<!-- sessions:end -->' };
/** The sections `npm run bench` keeps as they are when it rewrites the rest of the file. */
export const OWNED_SECTIONS: readonly OwnedSection[] = [
  LOAD200_SECTION,
  SPC_BUDGET_SECTION,
  SESSIONS_SECTION,
];

/**
 * Replaces the section `section` (which starts with `start` and ends with `end`) in `file`, or
 * appends it when the file has none: each bench owns one section of bench/RESULTS.md.
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
