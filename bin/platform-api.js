#!/usr/bin/env node
// Operator and user CLI. `platform-api hash-password` prints a bcrypt hash for api.adminAccount.passwordHash;
// `platform-api kubeconfig` writes a kubeconfig context for kubectl. Plain JavaScript so it runs on whatever Node
// the operator has.
import bcrypt from 'bcryptjs';
import { hashPasswordForAdminAccount, readPasswordFromTerminal, readPasswordFromPipe } from './password-prompt.js';
import { KUBECONFIG_USAGE, parseKubeconfigArguments, writeKubeconfig } from './kubeconfig-command.js';

const USAGE = `usage: platform-api hash-password [--cost N]
       platform-api kubeconfig --server URL [options]   (--help for its options)

Reads a password (without echo on a terminal, or the first line of standard input when piped)
and prints its bcrypt hash with the $2a$ prefix the API server expects (cost 10 by default).
Passwords longer than 72 bytes are refused: bcrypt would silently ignore the rest.`;

const [command, ...args] = process.argv.slice(2);
if (command === 'kubeconfig') {
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(`${KUBECONFIG_USAGE}\n`);
    process.exit(0);
  }
  let options;
  try {
    options = parseKubeconfigArguments(args);
  } catch (error) {
    process.stderr.write(`${error.message}\n${KUBECONFIG_USAGE}\n`);
    process.exit(2);
  }
  try {
    const { file, context } = await writeKubeconfig(options);
    process.stdout.write(`wrote context "${context}" to ${file} and made it current\n`);
    process.exit(0);
  } catch (error) {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}
if (command !== 'hash-password') {
  process.stderr.write(`${USAGE}\n`);
  process.exit(command === undefined || command === '--help' || command === '-h' ? 0 : 2);
}

let cost = 10;
for (let index = 0; index < args.length; index++) {
  if (args[index] === '--cost') cost = Number(args[++index]);
  else {
    process.stderr.write(`unknown option ${args[index]}\n${USAGE}\n`);
    process.exit(2);
  }
}
if (!Number.isInteger(cost) || cost < 4 || cost > 31) {
  process.stderr.write('--cost must be a whole number from 4 to 31 (10 is recommended)\n');
  process.exit(2);
}

try {
  const password = process.stdin.isTTY ? await readPasswordFromTerminal() : await readPasswordFromPipe();
  process.stdout.write(`${hashPasswordForAdminAccount(bcrypt, password, cost)}\n`);
} catch (error) {
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
}
