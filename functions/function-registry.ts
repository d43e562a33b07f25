import type { AppContext } from '../shared/app/app-context.ts';
import { createContextHandler, type CoreHandler } from '../shared/runtime/core-handler.ts';
import type { FunctionDefinition } from '../shared/runtime/function-definition.ts';
import type { FunctionName } from '../shared/routes/route-table.ts';
import { createLoginFunction } from './login/login-function.ts';
import { createPublicConfigFunction } from './public-config/public-config-function.ts';
import { createResourcesFunction } from './resources/resources-function.ts';
import { createInternalFunction } from './internal/internal-function.ts';
import { createRunLogsFunction } from './run-logs/run-logs-function.ts';

/** Every function's factory, for the processes that serve several (the local gateway, the other adapters). */
export const FUNCTION_FACTORIES: Record<FunctionName, (context: AppContext) => FunctionDefinition> = {
  login: createLoginFunction,
  'public-config': createPublicConfigFunction,
  resources: createResourcesFunction,
  internal: createInternalFunction,
  'run-logs': createRunLogsFunction,
};

/** Builds the core handler of one function over the shared context. */
export function createFunctionHandler(name: FunctionName, context: AppContext): CoreHandler {
  return createContextHandler(FUNCTION_FACTORIES[name](context), context);
}
