#!/usr/bin/env node
const [command, ...rest] = process.argv.slice(2);
if (command === 'simulate') {
  const { runSimulatorCommand } = await import('./simulator/main.ts');
  await runSimulatorCommand(rest);
}
