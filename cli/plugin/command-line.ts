// The command line of every user-facing command (`kubectl platform`, `platform-api`), read as kubectl
// (spf13/pflag) reads one: `--name value`, `--name=value`,
// `-n value`, `-n=value`, `-nvalue`, boolean flags alone or `=true|false`, flags anywhere among the
// arguments, `--` ending them. kubectl hands a plugin every argument after its name untouched.
import { PluginError } from './plugin-error.ts';

/** A flag a command takes. */
export interface FlagSpec {
  /** The long name, without `--`. */
  name: string;
  /** One letter, without `-`. */
  short?: string;
  /** A value flag's placeholder in the usage (`W`, `M`); absent for a boolean flag. */
  value?: string;
  description: string;
}

export interface CommandLine {
  positionals: string[];
  /** Each flag given, by long name: its value, or true for a boolean flag (`--watch=false` is absent). */
  flags: Map<string, string | true>;
}

/**
 * Reads `args` against `specs`; a flag not in `specs` or a value flag without a value is a usage error
 * whose hint names `program`'s help.
 */
export function parseCommandLine(
  args: readonly string[],
  specs: readonly FlagSpec[],
  program = PLUGIN_PROGRAM,
): CommandLine {
  const positionals: string[] = [];
  const flags = new Map<string, string | true>();
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    if (arg === '--') {
      positionals.push(...args.slice(index + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      positionals.push(arg);
      continue;
    }
    const long = arg.startsWith('--');
    const body = arg.slice(long ? 2 : 1);
    const equals = body.indexOf('=');
    let key = equals === -1 ? body : body.slice(0, equals);
    let inline: string | undefined = equals === -1 ? undefined : body.slice(equals + 1);
    if (!long && key.length > 1) {
      // -nteam-a: pflag reads the rest of a short value flag's argument as its value.
      inline = key.slice(1) + (inline === undefined ? '' : `=${inline}`);
      key = key.slice(0, 1);
    }
    const spec = specs.find((candidate) => (long ? candidate.name === key : candidate.short === key));
    if (!spec)
      throw usageError(
        `unknown ${long ? 'flag' : 'shorthand flag'}: ${long ? `--${key}` : `'${key}' in ${arg}`}`,
        program,
      );
    if (spec.value === undefined) {
      if (inline === undefined || inline === 'true') flags.set(spec.name, true);
      else if (inline === 'false') flags.delete(spec.name);
      else throw usageError(`invalid argument "${inline}" for "${flagName(spec)}" flag: not true or false`, program);
      continue;
    }
    const value = inline ?? args[++index];
    if (value === undefined)
      throw usageError(`flag needs an argument: ${long ? `--${key}` : `'${key}' in -${key}`}`, program);
    flags.set(spec.name, value);
  }
  return { positionals, flags };
}

/** `-n, --namespace` as the usage and messages name a flag. */
export function flagName(spec: FlagSpec): string {
  return spec.short ? `-${spec.short}, --${spec.name}` : `--${spec.name}`;
}

/** The usage lines of `specs`: `  -n, --namespace NS   description`. */
export function describeFlags(specs: readonly FlagSpec[]): string {
  const names = specs.map((spec) => `${flagName(spec)}${spec.value ? ` ${spec.value}` : ''}`);
  const width = Math.max(...names.map((name) => name.length));
  return specs.map((spec, index) => `  ${names[index]!.padEnd(width)}   ${spec.description}`).join('\n');
}

/** The plugin as its usage hints name it. */
export const PLUGIN_PROGRAM = 'kubectl platform';

/** A wrong command line (the plugin's exit code 4), with the hint kubectl gives: `See '<program> --help' for usage.` */
export function usageError(message: string, program = PLUGIN_PROGRAM): PluginError {
  return new PluginError(`error: ${message}\nSee '${program} --help' for usage.`, 'usage');
}
