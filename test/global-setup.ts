/**
 * Vitest global setup: compiles src/ to dist/ when it is stale, once before any test file runs,
 * so that the command-line and package tests spawn the same build a user runs.
 */
import { execFileSync } from 'node:child_process';

export default function setup(): void {
  execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { stdio: 'inherit' });
}
