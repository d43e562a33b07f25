import { parseArgs } from 'node:util';

/**
 * The functions-framework CLI's `--target`/`--port` flags, which win over FUNCTION_TARGET/PORT
 * as the framework reads them: the entry lays them over the environment it parses.
 */
export function frameworkFlags(argv: string[]): { FUNCTION_TARGET?: string; PORT?: string } {
  const { values } = parseArgs({
    args: argv.slice(2),
    strict: false,
    options: { target: { type: 'string' }, port: { type: 'string' } },
  });
  const flag = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  const target = flag(values.target);
  const port = flag(values.port);
  return {
    ...(target === undefined ? {} : { FUNCTION_TARGET: target }),
    ...(port === undefined ? {} : { PORT: port }),
  };
}
