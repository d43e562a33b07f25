// Entry point for Google's functions-framework and its local emulation (package.json "main"):
//   npx functions-framework --target=<function> [--port=<port>]
// Only the function named by --target (or FUNCTION_TARGET) is built and registered.
import * as functions from '@google-cloud/functions-framework';
import { createAppContext } from '../shared/app/app-context.ts';
import { createFunctionsFrameworkHandler } from '../shared/adapters/functions-framework-adapter.ts';
import { ConfigError } from '../shared/config/config-error.ts';
import { FUNCTION_NAMES } from '../shared/routes/route-table.ts';
import { localDataDir } from '../shared/local/local-data.ts';
import { createLogger, logLevelFromEnv } from '../shared/logging/logger.ts';
import { startOrExit } from '../shared/server/start-up.ts';
import { frameworkOptions } from './functions-framework-options.ts';
import { createFunctionHandler } from './function-registry.ts';
import { isFunctionName } from '../knative/function-target.ts';
import { openLocalRunHistory } from '../shared/local/local-run-history.ts';
import { startDevelopmentCluster } from '../infra/kube-emulator/development-cluster.ts';

const logger = createLogger({ level: logLevelFromEnv(process.env.LOG_LEVEL) });
const { target, port } = frameworkOptions(process.argv, process.env);
await startOrExit(logger, async () => {
  if (!isFunctionName(target)) throw new ConfigError('--target', `"${target}" is not one of ${FUNCTION_NAMES.join(', ')}`);
  // The port the framework really serves on gives the token's `iss` when API_BASE_URL is unset.
  const context = await createAppContext({ ...process.env, PORT: port }, { logger, localDataDir: localDataDir(process.env), developmentCluster: startDevelopmentCluster });
  await openLocalRunHistory(target, context);
  functions.http(target, createFunctionsFrameworkHandler(createFunctionHandler(target, context), context.config));
});
