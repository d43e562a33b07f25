import { ConfigError } from '../shared/base/config/config-error.ts';
import type { RuntimeSettings } from '../shared/base/config/settings.ts';
import { FUNCTION_NAMES, type FunctionName } from '../shared/contract/routes/route-table.ts';

/** FUNCTION_TARGET of the console's static server (issue 24): one more target of the same image, not an API function. */
export const CONSOLE_TARGET = 'console';

/** The function a container serves: FUNCTION_TARGET, which must name one of the functions. */
export function functionTarget(runtime: RuntimeSettings): FunctionName {
  const target = runtime.functionTarget ?? '';
  if (!isFunctionName(target)) {
    throw new ConfigError('FUNCTION_TARGET', `"${target}" is not one of ${FUNCTION_NAMES.join(', ')}`);
  }
  return target;
}

/** Whether a name (FUNCTION_TARGET, the functions-framework's --target) is one of the deployable functions. */
export function isFunctionName(name: string): name is FunctionName {
  return (FUNCTION_NAMES as readonly string[]).includes(name);
}
