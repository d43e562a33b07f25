import { parseArgs } from 'node:util';
import type { Environment } from '../shared/config/server-config.ts';

/**
 * The target and port the functions-framework CLI serves, read as the framework reads them:
 * the `--target`/`--port` flags, else FUNCTION_TARGET/PORT, else its defaults.
 */
export function frameworkOptions(argv: string[], env: Environment): { target: string; port: string } {
  const { values } = parseArgs({ args: argv.slice(2), strict: false, options: { target: { type: 'string' }, port: { type: 'string' } } });
  const flag = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  return { target: flag(values.target) ?? env.FUNCTION_TARGET ?? 'function', port: flag(values.port) ?? env.PORT ?? '8080' };
}
