// The checkout's development commands over the cluster and its local state (issue 43, item 8: they
// left the user-facing `platform-api` bin): `npm run local:setup`, `local:rotate-key`, `local:reset`,
// each `local-command.js <command> [--data-dir DIR]`. The command line is read by the CLI's one parser.
// Resolves with the exit code: 0 done, 1 the command failed, 2 a wrong command line.
import { resolve } from 'node:path';
import { describeFlags, type FlagSpec, parseCommandLine } from '../../../cli/plugin/command-line.ts';
import { EXIT_CODES } from '../../../cli/plugin/exit-codes.ts';
import { PluginError } from '../../../cli/plugin/plugin-error.ts';
import { loadSettings } from '../../../shared/base/config/settings.ts';
import { loadDevelopmentSettings } from '../local/local-settings.ts';
import { settingsOrExit } from '../../../knative/node-http/start-up.ts';
import { createLogger } from '../../../shared/base/logging/logger.ts';
import { resetLocalCommand, rotateSigningKeyCommand, setupCommand } from './local-commands.ts';

export interface Terminal {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

const FLAGS: readonly FlagSpec[] = [
  { name: 'data-dir', value: 'DIR', description: "the checkout's local state (default: LOCAL_DATA_DIR, else .data/)" },
  { name: 'help', short: 'h', description: 'this help' },
];

/** Each command by the name local-command.js takes, with the npm script that runs it. */
const COMMANDS = {
  setup: {
    script: 'local:setup',
    summary: `One-shot cluster set-up (what the chart's crds template installs): the platform's
      CustomResourceDefinitions in the KUBECONFIG cluster, or, without KUBECONFIG, in the built-in
      emulator's state under the data dir (seeding the example Project once).`,
  },
  'rotate-signing-key': {
    script: 'local:rotate-key',
    summary: `Writes a new admin token signing key into the fleet's secret folder (<data dir>/admin-secret):
      every function process switches within its poll interval, ending every admin session.`,
  },
  'reset-local': {
    script: 'local:reset',
    summary: `Deletes the local cluster state and the embedded database together (refused while they
      are in use).`,
  },
} as const;

type CommandName = keyof typeof COMMANDS;

const USAGE = `usage: npm run local:setup | local:rotate-key | local:reset [-- --data-dir DIR]

${Object.values(COMMANDS)
  .map(({ script, summary }) => `  npm run ${script}\n      ${summary}`)
  .join('\n\n')}

${describeFlags(FLAGS)}`;

/** Runs `local-command.js <args>`; resolves with the exit code. */
export async function localCommandMain(args: readonly string[], terminal: Terminal): Promise<number> {
  const [name, ...rest] = args;
  if (name === undefined || !Object.hasOwn(COMMANDS, name)) {
    terminal.stderr(`error: unknown command "${name ?? ''}"\n${USAGE}\n`);
    return 2;
  }
  const command = name as CommandName;
  try {
    const line = parseCommandLine(rest, FLAGS, `npm run ${COMMANDS[command].script} --`);
    if (line.flags.has('help')) {
      terminal.stdout(`${USAGE}\n`);
      return 0;
    }
    if (line.positionals.length > 0) {
      terminal.stderr(
        `error: npm run ${COMMANDS[command].script} takes no arguments, given ${line.positionals.join(' ')}\n`,
      );
      return 2;
    }
    const dataDir = line.flags.get('data-dir');
    await run(command, typeof dataDir === 'string' ? resolve(dataDir) : undefined, terminal);
    return 0;
  } catch (error) {
    terminal.stderr(`${error instanceof PluginError ? '' : 'error: '}${(error as Error).message}\n`);
    return error instanceof PluginError && error.exitCode === EXIT_CODES.usage ? 2 : 1;
  }
}

async function run(command: CommandName, dataDirOption: string | undefined, terminal: Terminal): Promise<void> {
  const settings = loadSettings(process.env);
  // Local development's own settings (LOCAL_DATA_DIR): refused naming the variable, as npm start refuses them.
  const dataDir = dataDirOption ?? settingsOrExit(process.env, loadDevelopmentSettings).dataDir;
  if (command === 'setup') {
    await setupCommand(settings, dataDir, createLogger({ level: settings.server.logLevel }));
  } else if (command === 'rotate-signing-key') {
    const folder = await rotateSigningKeyCommand(dataDir);
    terminal.stdout(
      `new signing key written to ${folder}; admin sessions end within the poll interval (ADMIN_SECRET_POLL_INTERVAL, 5s by default)\n`,
    );
  } else {
    const removed = await resetLocalCommand(dataDir);
    terminal.stdout(`removed ${removed.join(' and ')}\n`);
  }
}
