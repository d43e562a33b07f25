// `-o json` and `-o yaml` as kubectl prints them: JSON indented by four spaces, YAML as a document.
import { stringify as toYaml } from 'yaml';
import { usageError } from './command-line.ts';

/** The output formats of `-o`; a command says which of them it prints. */
export type OutputFormat = 'table' | 'wide' | 'json' | 'yaml' | 'name';

/** The -o value checked against what the command prints (kubectl's message for any other). */
export function outputFormat(given: string | undefined, allowed: readonly OutputFormat[]): OutputFormat {
  if (given === undefined) return 'table';
  if (given !== 'table' && (allowed as readonly string[]).includes(given)) return given as OutputFormat;
  throw usageError(
    `unable to match a printer suitable for the output format "${given}", allowed formats are: ${allowed.join(',')}`,
  );
}

/** One object printed as `json` or `yaml`. */
export function printObject(object: unknown, format: 'json' | 'yaml'): string {
  return format === 'json' ? `${JSON.stringify(object, null, 4)}\n` : toYaml(object);
}
