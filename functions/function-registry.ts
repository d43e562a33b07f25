import type { AppContext } from '../shared/app/app-context.ts';
import { createCoreHandler, type CoreHandler } from '../shared/runtime/core-handler.ts';
import type { FunctionDefinition } from '../shared/runtime/function-definition.ts';
import { FUNCTION_NAMES, type FunctionName } from '../shared/routes/route-table.ts';
import { publicOidcConfig } from '../shared/config/identity-config.ts';
import { createLoginFunction } from './login/login-function.ts';
import { createPublicConfigFunction } from './public-config/public-config-function.ts';
import { createResourcesFunction } from './resources/resources-function.ts';
import { createInternalFunction } from './internal/internal-function.ts';
import { createRunLogsFunction } from './run-logs/run-logs-function.ts';

const FACTORIES: Record<FunctionName, (context: AppContext) => FunctionDefinition> = {
  login: createLoginFunction,
  'public-config': (context) => createPublicConfigFunction(context, () => publicOidcConfig(context.identity.oidc)),
  resources: createResourcesFunction,
  internal: createInternalFunction,
  'run-logs': createRunLogsFunction,
};

/** The functions that keep run history, which open the database. */
const RUN_HISTORY_FUNCTIONS: ReadonlySet<FunctionName> = new Set(['resources', 'internal', 'run-logs']);

/**
 * Builds one function for a process of its own. With the checkout's local state (`localDataDir`),
 * a function keeping run history opens the embedded database now, so that a database held by
 * another process or not installed stops the start with that reason.
 */
export async function prepareSingleFunction(name: FunctionName, context: AppContext, localState: boolean): Promise<CoreHandler> {
  if (localState && RUN_HISTORY_FUNCTIONS.has(name)) await context.runs.openIfEmbedded();
  return createFunctionHandler(name, context);
}

/** Whether a name (e.g. FUNCTION_TARGET) is one of the deployable functions. */
export function isFunctionName(name: string): name is FunctionName {
  return (FUNCTION_NAMES as readonly string[]).includes(name);
}

/** Builds the core handler of one function over the shared context. */
export function createFunctionHandler(name: FunctionName, context: AppContext): CoreHandler {
  return createCoreHandler(FACTORIES[name](context), { routes: context.routes, authenticator: context.authenticator, logger: context.logger });
}
