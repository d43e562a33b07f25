#!/usr/bin/env node
// Operator and user CLI. `platform-api hash-password` prints a bcrypt hash for api.adminAccount.passwordHash;
// `platform-api kubeconfig` writes a kubeconfig context for kubectl: both are user-facing and live in
// cli/ beside the kubectl plugin (issue 39), this entry only dispatches to them. `setup`,
// `rotate-signing-key` and `reset-local` act on the cluster and the checkout's local state and stay
// here, with development. Plain JavaScript so that hash-password and kubeconfig run on whatever Node
// the operator has; the other commands load the server's TypeScript modules, which needs the Node
// the server runs on: an older Node hands the command to the one the project installed (issue 44, item 12).
import '../../../cli/on-project-node.js';
import { hashPasswordCommand, isBcryptCost } from '../../../cli/hash-password-command.js';
import { KUBECONFIG_USAGE, parseKubeconfigArguments, writeKubeconfig } from '../../../cli/kubeconfig-command.js';

const USAGE = `usage: platform-api hash-password [--cost N]
       platform-api kubeconfig --server URL [options]   (--help for its options)
       platform-api setup | rotate-signing-key | reset-local [--data-dir DIR]

The data dir is the checkout's local state: --data-dir, else LOCAL_DATA_DIR, else .data/.

  hash-password [--cost N]
      Reads a password (without echo on a terminal, or the first line of standard input when piped)
      and prints its bcrypt hash with the $2a$ prefix the API server expects (cost 10 by default).
      Passwords longer than 72 bytes are refused: bcrypt would silently ignore the rest.

  setup [--data-dir DIR]
      One-shot cluster set-up (what the chart's hook Job does): installs the platform's
      CustomResourceDefinitions in the KUBECONFIG cluster, or, without KUBECONFIG, in the built-in
      emulator's state under the data dir (seeding the example Project once).

  rotate-signing-key [--data-dir DIR]
      Writes a new admin token signing key into the fleet's secret folder (<data dir>/admin-secret):
      every function process switches within its poll interval, ending every admin session.

  reset-local [--data-dir DIR]
      Deletes the local cluster state and the embedded database together (refused while they
      are in use).`;

const [command, ...args] = process.argv.slice(2);
const LOCAL_COMMANDS = ['setup', 'rotate-signing-key', 'reset-local'];
if (command === '--help' || command === '-h') {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
if (command === undefined) {
  // No command is a mistake, not a request for help: scripts must see it fail.
  process.stderr.write(`no command given\n${USAGE}\n`);
  process.exit(2);
}
if (command === 'kubeconfig') {
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(`${KUBECONFIG_USAGE}\n`);
    process.exit(0);
  }
  let kubeconfigOptions;
  try {
    kubeconfigOptions = parseKubeconfigArguments(args);
  } catch (error) {
    process.stderr.write(`${error.message}\n${KUBECONFIG_USAGE}\n`);
    process.exit(2);
  }
  try {
    const { file, context } = await writeKubeconfig(kubeconfigOptions);
    process.stdout.write(`wrote context "${context}" to ${file} and made it current\n`);
    process.exit(0);
  } catch (error) {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}
if (command !== 'hash-password' && !LOCAL_COMMANDS.includes(command)) {
  process.stderr.write(`unknown command ${command}\n${USAGE}\n`);
  process.exit(2);
}

const options = { cost: 10, dataDir: undefined };
for (let index = 0; index < args.length; index++) {
  if (args[index] === '--cost' && command === 'hash-password') options.cost = Number(args[++index]);
  else if (args[index] === '--data-dir' && command !== 'hash-password' && args[index + 1])
    options.dataDir = args[++index];
  else {
    process.stderr.write(`unknown option ${args[index]}\n${USAGE}\n`);
    process.exit(2);
  }
}

try {
  if (command === 'hash-password') await hashPassword(options.cost);
  else await runLocalCommand(command, options.dataDir);
} catch (error) {
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
}

async function hashPassword(cost) {
  if (!isBcryptCost(cost)) {
    process.stderr.write('--cost must be a whole number from 4 to 31 (10 is recommended)\n');
    process.exit(2);
  }
  process.stdout.write(`${await hashPasswordCommand(cost)}\n`);
}

async function runLocalCommand(name, dataDirOption) {
  const { resolve } = await import('node:path');
  const { loadSettings } = await import('../../../shared/base/config/settings.ts');
  const { createLogger } = await import('../../../shared/base/logging/logger.ts');
  const commands = await import('./local-commands.ts');
  const settings = loadSettings(process.env);
  const dataDir = dataDirOption ? resolve(dataDirOption) : settings.local.dataDir;
  if (name === 'setup') {
    await commands.setupCommand(settings, dataDir, createLogger({ level: settings.server.logLevel }));
  } else if (name === 'rotate-signing-key') {
    const folder = await commands.rotateSigningKeyCommand(dataDir);
    process.stdout.write(
      `new signing key written to ${folder}; admin sessions end within the poll interval (ADMIN_SECRET_POLL_INTERVAL, 5s by default)\n`,
    );
  } else {
    const removed = await commands.resetLocalCommand(dataDir);
    process.stdout.write(`removed ${removed.join(' and ')}\n`);
  }
}
