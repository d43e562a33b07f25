import type { AppContext } from '../shared/server/app/app-context.ts';
import { createContextHandler, type CoreHandler } from '../shared/server/runtime/core-handler.ts';
import type { FunctionModule } from '../shared/server/runtime/function-definition.ts';
import { defineFunction } from '../shared/server/runtime/define-function.ts';
import type { FunctionName } from '../shared/contract/routes/route-table.ts';
import { loginFunction } from './login/login-function.ts';
import { publicConfigFunction } from './public-config/public-config-function.ts';
import { resourcesFunction } from './resources/resources-function.ts';
import { internalFunction } from './internal/internal-function.ts';
import { runLogsFunction } from './run-logs/run-logs-function.ts';

/** Every function, for the processes that serve several or choose one (the local gateway, the adapters, FUNCTION_TARGET). */
export const FUNCTION_MODULES: Record<FunctionName, FunctionModule> = {
  login: loginFunction,
  'public-config': publicConfigFunction,
  resources: resourcesFunction,
  internal: internalFunction,
  'run-logs': runLogsFunction,
};

/**
 * Builds the core handler of one function over the shared context. `servedWith`: the functions of
 * its process, when it serves more than this one (`npm start`): its `/readyz` answers for all of them.
 */
export function createFunctionHandler(
  name: FunctionName,
  context: AppContext,
  servedWith?: readonly FunctionModule[],
): CoreHandler {
  return createContextHandler(defineFunction(FUNCTION_MODULES[name], context, servedWith), context);
}
