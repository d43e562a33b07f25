// What every command of the plugin is: its words (`runs list`), its flags beside the global ones, the
// output formats it prints, and how it runs. One command per file, as `kubectl argo rollouts` has them.
import type { CommandLine, FlagSpec } from '../plugin/command-line.ts';
import type { PlatformConnection } from '../plugin/platform-connection.ts';
import type { OutputFormat } from '../plugin/printed-objects.ts';

/** What a command runs with: its arguments and flags, the shared connection, the output streams. */
export interface CommandContext {
  /** The arguments after the command's words, and every flag given (global ones included). */
  line: CommandLine;
  /** The kubeconfig's connection; made on first use, so `--help` needs no kubeconfig. */
  connection(): PlatformConnection;
  output: OutputFormat;
  /** Whether colours reach the terminal: standard output is one and --no-color was not given. */
  colour: boolean;
  /** Whether standard output is a terminal (a watch redraws in place there). */
  terminal: boolean;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

export interface PluginCommand {
  /** The command's words: `['runs', 'list']`. */
  words: [string, string];
  /** Its arguments as the usage shows them: `RUN`, `WORKSPACE`. */
  arguments: string[];
  summary: string;
  flags: FlagSpec[];
  /** The -o formats it prints besides its table. */
  outputs: OutputFormat[];
  /** Examples for --help. */
  examples: string[];
  /** Resolves with the exit code. */
  run(context: CommandContext): Promise<number>;
}

/** A flag's string value, when given. */
export function stringFlag(context: CommandContext, name: string): string | undefined {
  const value = context.line.flags.get(name);
  return typeof value === 'string' ? value : undefined;
}

/** Whether a boolean flag was given. */
export function booleanFlag(context: CommandContext, name: string): boolean {
  return context.line.flags.get(name) === true;
}
