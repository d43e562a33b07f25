import * as functions from '@google-cloud/functions-framework';
import { createAppContext } from '../shared/app/app-context.ts';
import { createFunctionsFrameworkHandler } from '../shared/adapters/functions-framework-adapter.ts';
import { ConfigError } from '../shared/config/config-error.ts';
import { FUNCTION_NAMES } from '../shared/routes/route-table.ts';
import { createLogger } from '../shared/logging/logger.ts';
import { settingsOrExit, startOrExit } from '../shared/server/start-up.ts';
import { frameworkFlags } from './functions-framework-options.ts';
import { FUNCTION_MODULES } from '../functions/function-registry.ts';
import { createContextHandler } from '../shared/runtime/core-handler.ts';
import { defineFunction } from '../shared/runtime/define-function.ts';
import { isFunctionName } from './knative/function-target.ts';
import { openLocalRunHistory } from '../shared/app/local-run-history.ts';
import type { DevelopmentServicesFor } from '../shared/app/development-services.ts';

/**
 * Registers the function named by --target (or FUNCTION_TARGET) with the functions-framework, and
 * only that one. The package's `main` (entries/functions-framework.ts) hands over nothing more; the
 * development entry (infra/development/entries/functions-framework.ts) hands over local
 * development's cluster and database (`development`).
 */
export async function registerFrameworkTarget(development?: DevelopmentServicesFor): Promise<void> {
  // The port the framework really serves on gives the token's `iss` when API_BASE_URL is unset.
  const settings = settingsOrExit({ ...process.env, ...frameworkFlags(process.argv) });
  const logger = createLogger({ level: settings.server.logLevel });
  const target = settings.runtime.functionTarget ?? 'function';
  await startOrExit(logger, async () => {
    if (!isFunctionName(target))
      throw new ConfigError('--target', `"${target}" is not one of ${FUNCTION_NAMES.join(', ')}`);
    const module = FUNCTION_MODULES[target];
    const context = await createAppContext(settings, {
      logger,
      cluster: module.cluster,
      ...(development ? { development: development(settings) } : {}),
    });
    if (module.runHistory) await openLocalRunHistory(context);
    functions.http(
      target,
      createFunctionsFrameworkHandler(createContextHandler(defineFunction(module, context), context), context.config),
    );
  });
}
