#!/usr/bin/env node
// `platform-api` (the package's bin): hash-password and kubeconfig, the user-facing commands beside
// the kubectl plugin (docs/cli.md). Plain JavaScript so that any Node parses it: an older one hands the
// command to the Node the project installed first (../on-project-node.js), and only then are the
// TypeScript sources loaded, which need Node 22.
import '../on-project-node.js';

const { platformApiMain } = await import('./platform-api-main.ts');
const exitCode = await platformApiMain(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
// Exit once what was written reached the pipe.
process.stdout.write('', () => process.exit(exitCode));
