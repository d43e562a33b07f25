// The plugin's main: finds the command in the arguments kubectl hands over, reads the flags (global ones
// anywhere on the line), runs the command and resolves with the exit code. Every error is printed in
// kubectl's words, never as a stack trace.
import { COMMANDS } from './commands/command-list.ts';
import type { CommandContext, PluginCommand } from './commands/plugin-command.ts';
import { type FlagSpec, describeFlags, flagName, parseCommandLine, usageError } from './plugin/command-line.ts';
import { EXIT_CODES } from './plugin/exit-codes.ts';
import { GLOBAL_FLAGS } from './plugin/global-flags.ts';
import { PlatformConnection } from './plugin/platform-connection.ts';
import { PluginError } from './plugin/plugin-error.ts';
import { outputFormat } from './plugin/printed-objects.ts';

export interface Terminal {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Whether standard output is a terminal. */
  isTerminal: boolean;
}

/** Runs `kubectl platform <args>`; resolves with the exit code. */
export async function pluginMain(args: readonly string[], terminal: Terminal): Promise<number> {
  try {
    return await dispatch(args, terminal);
  } catch (error) {
    if (error instanceof PluginError) {
      terminal.stderr(`${error.message}\n`);
      return error.exitCode;
    }
    terminal.stderr(`error: ${(error as Error).message}\n`);
    return EXIT_CODES.server;
  }
}

async function dispatch(args: readonly string[], terminal: Terminal): Promise<number> {
  // Every command's flags, to tell a flag's value from a command word wherever flags stand.
  const anyFlags = uniqueByName([...GLOBAL_FLAGS, ...COMMANDS.flatMap((command) => command.flags)]);
  const words = parseCommandLine(args, anyFlags).positionals.slice(0, 2);
  const help = args.includes('--help') || args.includes('-h');
  const command = COMMANDS.find((candidate) => candidate.words.join(' ') === words.join(' '));
  if (!command) {
    // `kubectl platform` or `kubectl platform runs` alone: what there is to run (an error without --help).
    const group =
      words.length < 2 && (words.length === 0 || COMMANDS.some((candidate) => candidate.words[0] === words[0]));
    if (help || group) {
      (help ? terminal.stdout : terminal.stderr)(overview(words[0]));
      return help ? EXIT_CODES.success : EXIT_CODES.usage;
    }
    throw usageError(`unknown command "${words.join(' ')}" for "kubectl platform"`);
  }
  if (help) {
    terminal.stdout(commandHelp(command));
    return EXIT_CODES.success;
  }
  const line = parseCommandLine(args, [...GLOBAL_FLAGS, ...command.flags]);
  const positionals = line.positionals.slice(2);
  if (positionals.length !== command.arguments.length)
    throw usageError(
      `"kubectl platform ${command.words.join(' ')}" takes ${command.arguments.length === 0 ? 'no arguments' : command.arguments.join(' ')}, given ${positionals.length === 0 ? 'none' : positionals.join(' ')}`,
    );
  const flag = (name: string) => {
    const value = line.flags.get(name);
    return typeof value === 'string' ? value : undefined;
  };
  let connection: PlatformConnection | undefined;
  const context: CommandContext = {
    line: { positionals, flags: line.flags },
    connection: () => {
      connection ??= new PlatformConnection({
        ...optional('kubeconfig', flag('kubeconfig')),
        ...optional('context', flag('context')),
        ...optional('namespace', flag('namespace')),
      });
      return connection;
    },
    output: outputFormat(flag('output'), command.outputs),
    colour: terminal.isTerminal && !line.flags.has('no-color'),
    terminal: terminal.isTerminal,
    stdout: terminal.stdout,
    stderr: terminal.stderr,
  };
  return command.run(context);
}

function optional<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}

function uniqueByName(specs: FlagSpec[]): FlagSpec[] {
  return [...new Map(specs.map((spec) => [spec.name, spec])).values()];
}

/** `kubectl platform --help` (or `kubectl platform runs --help`): the commands and the global flags. */
function overview(group: string | undefined): string {
  const listed = COMMANDS.filter((command) => group === undefined || command.words[0] === group);
  const names = listed.map((command) => `${command.words.join(' ')} ${command.arguments.join(' ')}`.trim());
  const width = Math.max(...names.map((name) => name.length));
  return `Runs and Rollouts of the Platform API from the terminal (docs/cli.md).

Commands:
${listed.map((command, index) => `  ${names[index]!.padEnd(width)}   ${command.summary}`).join('\n')}

Flags of every command:
${describeFlags(GLOBAL_FLAGS)}

Exit codes: 0 done (with --follow: the run Succeeded), 1 the followed run Failed, 2 it was Cancelled,
3 the server refused or could not be reached, 4 a wrong command line or kubeconfig, 5 the followed run
was removed by retention before its end was seen.

Usage:
  kubectl platform <runs|rollouts> <command> [arguments] [flags]
Use "kubectl platform <runs|rollouts> <command> --help" for more about a command.
`;
}

function commandHelp(command: PluginCommand): string {
  const flags = command.flags.map((spec) => `${flagName(spec)}${spec.value ? ` ${spec.value}` : ''}`);
  return `${command.summary}.

Examples:
${command.examples.map((example) => `  ${example}`).join('\n')}

Usage:
  kubectl platform ${command.words.join(' ')} ${[...command.arguments, ...flags.map((flag) => `[${flag}]`)].join(' ')}${command.outputs.length > 0 ? ` [-o ${command.outputs.join('|')}]` : ''}
${command.flags.length > 0 ? `\nFlags:\n${describeFlags(command.flags)}\n` : ''}
Flags of every command:
${describeFlags(GLOBAL_FLAGS)}
`;
}
