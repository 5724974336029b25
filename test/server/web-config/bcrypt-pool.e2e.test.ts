/**
 * The bcrypt threads: answers and their timing, and a process that uses them still ends on its
 * own (a child process, hence e2e).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import bcrypt from 'bcryptjs';
import { describe, expect, it } from 'vitest';
import { BcryptPool } from '../../../src/server/web-config/bcrypt-pool.ts';

const HASH = bcrypt.hashSync('right', 4);

describe('the bcrypt pool', () => {
  it('answers each comparison with its result and the time the hash took, one thread for many', async () => {
    const pool = new BcryptPool(1);
    const answers = await Promise.all([
      pool.compare('right', HASH),
      pool.compare('wrong', HASH),
      pool.compare('right', 'not a bcrypt hash'),
    ]);
    expect(answers.map((a) => a.ok)).toEqual([true, false, false]);
    // A cost-4 hash takes a few milliseconds; a malformed one none to speak of.
    expect(answers[0]?.ms).toBeGreaterThan(0);
    expect(answers[1]?.ms).toBeGreaterThan(0);
  });

  it('lets the process end once its threads are idle', () => {
    const pool = fileURLToPath(new URL('../../../src/server/web-config/bcrypt-pool.ts', import.meta.url));
    const script = [
      `import { BcryptPool } from ${JSON.stringify(pool)};`,
      'const pool = new BcryptPool(2);',
      `const r = await Promise.all([pool.compare('right', ${JSON.stringify(HASH)}), pool.compare('x', ${JSON.stringify(HASH)})]);`,
      'console.log(r.map((a) => a.ok).join());',
    ].join('\n');
    // With a thread kept referenced when idle, the child printed its answer and never ended.
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'bcrypt-pool-')), 'use-pool.mjs');
    writeFileSync(file, script);
    const child = spawnSync(process.execPath, [file], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect([child.status, child.signal, child.stdout], child.stderr).toEqual([0, null, 'true,false\n']);
  }, 40_000);
});
