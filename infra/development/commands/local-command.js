#!/usr/bin/env node
// The checkout's development commands, run by npm scripts: `npm run local:setup | local:rotate-key |
// local:reset [-- --data-dir DIR]` (README, "Local development"). Plain JavaScript so that any Node
// parses it: an older one hands the command to the Node the project installed first
// (cli/on-project-node.js), and only then are the TypeScript sources loaded, which need Node 22.
import '../../../cli/on-project-node.js';

const { localCommandMain } = await import('./local-command-main.ts');
process.exitCode = await localCommandMain(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
