/**
 * Setup of the `unit` test project: a unit test starts no child process and no network server.
 * Both are made to throw here, so that a test that needs them fails with a message that says
 * where it belongs (the `e2e` project: name the file `*.e2e.test.ts`) instead of slowing the unit
 * run down.
 */
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';

const refuse = (what: string) => () => {
  throw new Error(`a unit test ${what}: name this test file *.e2e.test.ts to put it in the e2e project`);
};
for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const) {
  (childProcess as unknown as Record<string, unknown>)[name] = refuse(`starts a child process (${name})`);
}
net.Server.prototype.listen = refuse('starts a network server') as typeof net.Server.prototype.listen;
syncBuiltinESMExports();
