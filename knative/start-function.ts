import { createAppContext, type AppContext, type AppContextOptions } from '../shared/server/app/app-context.ts';
import { openLocalRunHistory } from '../shared/server/app/local-run-history.ts';
import type { Settings } from '../shared/base/config/settings.ts';
import type { Logger } from '../shared/base/logging/logger.ts';
import { createContextHandler, type CoreHandler } from '../shared/server/runtime/core-handler.ts';
import { defineFunction } from '../shared/server/runtime/define-function.ts';
import type { FunctionModule } from '../shared/server/runtime/function-definition.ts';
import { startTracing } from '../shared/base/tracing/start-tracing.ts';

/**
 * What every runtime entry does to serve one function, in one order: tracing first (so the
 * context's clients are traced), the context its facts ask for, the embedded run history opened
 * at once when it keeps local state (a database held elsewhere stops the start with its reason),
 * then the function's handler over the filter chain.
 */
export async function startFunction(
  module: FunctionModule,
  settings: Settings,
  options: AppContextOptions & { logger: Logger },
): Promise<{ context: AppContext; handler: CoreHandler }> {
  await startTracing(settings.tracing, `platform-api-${module.name}`, options.logger);
  const context = await createAppContext(settings, { cluster: module.cluster, ...options });
  if (options.development?.localState && module.runHistory) await openLocalRunHistory(context);
  return { context, handler: createContextHandler(defineFunction(module, context), context) };
}
