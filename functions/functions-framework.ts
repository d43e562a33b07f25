// Entry point for Google's functions-framework and its local emulation (package.json "main"):
//   npx functions-framework --target=<function> [--port=<port>]
// Only the function named by --target (or FUNCTION_TARGET) is built and registered.
import * as functions from '@google-cloud/functions-framework';
import { createAppContext } from '../shared/app/app-context.ts';
import { createFunctionsFrameworkHandler } from '../shared/adapters/functions-framework-adapter.ts';
import { ConfigError } from '../shared/config/config-error.ts';
import { FUNCTION_NAMES } from '../shared/routes/route-table.ts';
import { createLogger } from '../shared/logging/logger.ts';
import { settingsOrExit, startOrExit } from '../shared/server/start-up.ts';
import { frameworkFlags } from './functions-framework-options.ts';
import { FUNCTION_MODULES } from './function-registry.ts';
import { createContextHandler } from '../shared/runtime/core-handler.ts';
import { isFunctionName } from '../knative/function-target.ts';
import { openLocalRunHistory } from '../shared/app/local-run-history.ts';
import { startDevelopmentCluster } from '../infra/development/development-cluster.ts';
import { startTracing } from '../shared/tracing/start-tracing.ts';

// The port the framework really serves on gives the token's `iss` when API_BASE_URL is unset.
const settings = settingsOrExit({ ...process.env, ...frameworkFlags(process.argv) });
const logger = createLogger({ level: settings.server.logLevel });
const target = settings.runtime.functionTarget ?? 'function';
await startOrExit(logger, async () => {
  if (!isFunctionName(target))
    throw new ConfigError('--target', `"${target}" is not one of ${FUNCTION_NAMES.join(', ')}`);
  const module = FUNCTION_MODULES[target];
  await startTracing(settings.tracing, `platform-api-${target}`, logger);
  const context = await createAppContext(settings, {
    logger,
    cluster: module.cluster,
    localDataDir: settings.local.dataDir,
    developmentCluster: startDevelopmentCluster,
  });
  if (module.runHistory) await openLocalRunHistory(context);
  functions.http(
    target,
    createFunctionsFrameworkHandler(createContextHandler(module.create(context), context), context.config),
  );
});
