#!/usr/bin/env node
// `kubectl platform`: the Platform API's kubectl plugin (issue 39, docs/cli.md). kubectl runs the
// executable named kubectl-platform that it finds on PATH with the arguments after `platform`; the
// same file runs as `npx kubectl-platform` from the package, and bundled (npm run build) as the single
// executable and the krew plugin's binary.
import { pluginMain } from './plugin-main.ts';

// A reader that stops early (`| head`) is not an error of the command.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

// No top-level await: the single executable runs this file bundled as CommonJS (Node's SEA takes no ES module).
void pluginMain(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  isTerminal: process.stdout.isTTY === true,
}).then((exitCode) => {
  // Exit once what was written reached the pipe; an agent's socket must not keep the process.
  process.stdout.write('', () => process.exit(exitCode));
});
