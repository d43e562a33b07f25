// `platform-api`'s main: the user-facing commands beside the kubectl plugin (issue 43, item 8), read
// with the plugin's command-line parser and answered through its client and error reader. Resolves
// with the exit code: 0 done, 1 the command failed, 2 a wrong command line (the codes this bin has
// always had; the plugin's own table is cli/plugin/exit-codes.ts).
import { type CommandLine, describeFlags, type FlagSpec, parseCommandLine } from '../plugin/command-line.ts';
import { EXIT_CODES } from '../plugin/exit-codes.ts';
import { PluginError } from '../plugin/plugin-error.ts';
import { BCRYPT_COSTS, hashPasswordCommand, isBcryptCost } from './hash-password-command.ts';
import { KUBECONFIG_FLAGS, kubeconfigOptions, writeKubeconfig } from './kubeconfig-command.ts';

export interface Terminal {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

const PROGRAM = 'platform-api';
const EXIT = { success: 0, failed: 1, usage: 2 } as const;

const HELP_FLAG: FlagSpec = { name: 'help', short: 'h', description: 'help for the command' };

const HASH_PASSWORD_FLAGS: readonly FlagSpec[] = [
  {
    name: 'cost',
    value: 'N',
    description: `bcrypt cost, a whole number from ${BCRYPT_COSTS.min} to ${BCRYPT_COSTS.max} (default ${BCRYPT_COSTS.recommended})`,
  },
];

const USAGE = `usage: platform-api hash-password [--cost N]
       platform-api kubeconfig --server URL [options]   (--help for its options)

  hash-password [--cost N]
      Reads a password (without echo on a terminal, or the first line of standard input when piped)
      and prints its bcrypt hash with the $2a$ prefix the API server expects (cost ${BCRYPT_COSTS.recommended} by default).
      Passwords longer than 72 bytes are refused: bcrypt would silently ignore the rest.

  kubeconfig --server URL [options]
      Logs in to the Platform API at URL and writes a kubeconfig context for kubectl and
      \`kubectl platform\` (docs/kubectl.md, docs/cli.md).

The checkout's development commands are npm scripts: npm run local:setup | local:rotate-key | local:reset.`;

const KUBECONFIG_USAGE = `usage: platform-api kubeconfig --server URL [options]

Logs in to the Platform API at URL and writes a kubeconfig context for it (and makes it current).
Without --id-token the admin password is read (prompted without echo, or the first line of a pipe).

${describeFlags(KUBECONFIG_FLAGS)}`;

interface Command {
  flags: readonly FlagSpec[];
  usage: string;
  run: (line: CommandLine, terminal: Terminal) => Promise<number>;
}

const COMMANDS: Record<string, Command> = {
  'hash-password': { flags: HASH_PASSWORD_FLAGS, usage: USAGE, run: hashPassword },
  kubeconfig: { flags: KUBECONFIG_FLAGS, usage: KUBECONFIG_USAGE, run: kubeconfig },
};

/** Runs `platform-api <args>`; resolves with the exit code. */
export async function platformApiMain(args: readonly string[], terminal: Terminal): Promise<number> {
  const [name, ...rest] = args;
  if (name === '--help' || name === '-h') {
    terminal.stdout(`${USAGE}\n`);
    return EXIT.success;
  }
  // No command is a mistake, not a request for help: scripts must see it fail.
  if (name === undefined) return usageFailure(terminal, 'no command given', USAGE);
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) return usageFailure(terminal, `unknown command "${name}" for "${PROGRAM}"`, USAGE);
  try {
    const line = parseCommandLine(rest, [...command.flags, HELP_FLAG], `${PROGRAM} ${name}`);
    if (line.flags.has('help')) {
      terminal.stdout(`${command.usage}\n`);
      return EXIT.success;
    }
    if (line.positionals.length > 0)
      return usageFailure(
        terminal,
        `"${PROGRAM} ${name}" takes no arguments, given ${line.positionals.join(' ')}`,
        command.usage,
      );
    return await command.run(line, terminal);
  } catch (error) {
    if (error instanceof PluginError) {
      terminal.stderr(`${error.message}\n`);
      return error.exitCode === EXIT_CODES.usage ? EXIT.usage : EXIT.failed;
    }
    terminal.stderr(`error: ${(error as Error).message}\n`);
    return EXIT.failed;
  }
}

/** A wrong command line: kubectl's `error: ...` line, then the usage to put it right. */
function usageFailure(terminal: Terminal, message: string, usage: string): number {
  terminal.stderr(`error: ${message}\n${usage}\n`);
  return EXIT.usage;
}

async function hashPassword(line: CommandLine, terminal: Terminal): Promise<number> {
  const given = line.flags.get('cost');
  const cost = typeof given === 'string' ? Number(given) : BCRYPT_COSTS.recommended;
  if (!isBcryptCost(cost))
    return usageFailure(
      terminal,
      `--cost must be a whole number from ${BCRYPT_COSTS.min} to ${BCRYPT_COSTS.max} (${BCRYPT_COSTS.recommended} is recommended)`,
      USAGE,
    );
  terminal.stdout(`${await hashPasswordCommand(cost)}\n`);
  return EXIT.success;
}

async function kubeconfig(line: CommandLine, terminal: Terminal): Promise<number> {
  let options: ReturnType<typeof kubeconfigOptions>;
  try {
    options = kubeconfigOptions(line);
  } catch (error) {
    return usageFailure(terminal, (error as Error).message, KUBECONFIG_USAGE);
  }
  if (new URL(options.server).protocol === 'http:')
    terminal.stderr('warning: kubectl sends tokens only over HTTPS; use the https:// URL of the server\n');
  const { file, context } = await writeKubeconfig(options);
  terminal.stdout(`wrote context "${context}" to ${file} and made it current\n`);
  return EXIT.success;
}
