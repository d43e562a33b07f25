// Our resources function through the functions-framework adapter, served by the framework.
import * as functions from '@google-cloud/functions-framework';
import { getTestServer } from '@google-cloud/functions-framework/testing';
import { createAppContext } from '../../../shared/server/app/app-context.ts';
import { createFunctionsFrameworkHandler } from '../../../knative/adapters/functions-framework-adapter.ts';
import { createFunctionHandler } from '../../../functions/function-registry.ts';
import { createLogger } from '../../../shared/base/logging/logger.ts';
import { loadSettings } from '../../../shared/base/config/settings.ts';

const context = await createAppContext(loadSettings(process.env), { logger: createLogger({ level: 'error' }) });
functions.http(
  'resources',
  createFunctionsFrameworkHandler(createFunctionHandler('resources', context), context.config),
);
getTestServer('resources').listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('listening\n'));
