/**
 * Headless Chromium (Debian package `chromium`) through playwright-core, for browser tests.
 * Tests use `describe.skipIf(!chromiumPath() && !process.env.CI)`, so a missing browser
 * fails under CI.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

/** Path of the chromium binary, or undefined. */
export function chromiumPath(): string | undefined {
  if (existsSync('/usr/bin/chromium')) return '/usr/bin/chromium';
  const r = spawnSync('sh', ['-c', 'command -v chromium || command -v chromium-browser'], {
    encoding: 'utf8',
  });
  return r.status === 0 && r.stdout.trim() !== '' ? r.stdout.trim() : undefined;
}

/** A launched browser on a fresh profile (its own user-data-dir); `close` removes the profile too. */
export async function launchChromium(): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const executablePath = chromiumPath();
  if (!executablePath) throw new Error('chromium not found');
  const profile = mkdtempSync(path.join(tmpdir(), 'chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
