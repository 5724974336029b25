#!/usr/bin/env node
// Runs the compiled build in dist/, so a start costs no transpiling. `npm ci` builds it (prepare),
// `npm start` rebuilds it when src/ changed, and the published package ships it.
import { existsSync } from 'node:fs';
import { totalmem } from 'node:os';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write('station-exporter: dist/ is missing; run `npm run build` first\n');
  process.exit(1);
}
// The running Node first: on an older one, undici fails at load with a TypeError that names no
// version. The check module imports nothing, so it loads on any Node.
const { nodeVersionProblem } = await import(new URL('../dist/util/node-version.js', import.meta.url).href);
const problem = nodeVersionProblem(process.version);
if (problem !== undefined) {
  process.stderr.write(problem);
  process.exit(1);
}
// Heap and allocator settings only take effect at start: without a memory limit, node is
// started again (same pid) with a heap ceiling, instead of sizing its heap from the host
// (docs/operations.md, "Memory"). Flags given on the command line or in NODE_OPTIONS win.
const { startFlags } = await import(new URL('../dist/util/heap-ceiling.js', import.meta.url).href);
const add = startFlags({
  args: process.argv.slice(2),
  execArgv: process.execArgv,
  env: process.env,
  constrainedMemoryBytes: process.constrainedMemory?.() ?? 0,
  totalMemoryBytes: totalmem(),
});
// Not under systemd socket activation: Node closes the inherited listening sockets across the
// exec (they would be lost); there the unit sets the heap ceiling (docs/install.md, "systemd").
const socketActivated = process.env.LISTEN_FDS !== undefined;
const restart = add.execArgv.length > 0 || Object.keys(add.env).length > 0;
if (restart && !socketActivated && typeof process.execve === 'function') {
  const args = [...add.execArgv, ...process.execArgv, ...process.argv.slice(1)];
  process.execve(process.execPath, [process.execPath, ...args], { ...process.env, ...add.env });
}
await import(cli.href);
