// Entry point for AWS Lambda behind API Gateway (HTTP API, payload format 2.0): one exported
// handler per function, named after it (`publicConfig` for public-config, `runLogs` for run-logs).
import { createAppContext } from '../shared/server/app/app-context.ts';
import { createLambdaHandler } from './adapters/lambda-adapter.ts';
import { settingsOrExit } from './node-http/start-up.ts';
import { createFunctionHandler } from '../functions/function-registry.ts';

const context = await createAppContext(settingsOrExit(process.env));
const lambdaFor = (name: Parameters<typeof createFunctionHandler>[0]) =>
  createLambdaHandler(createFunctionHandler(name, context), context.config);

export const login = lambdaFor('login');
export const publicConfig = lambdaFor('public-config');
export const resources = lambdaFor('resources');
export const internal = lambdaFor('internal');
export const runLogs = lambdaFor('run-logs');
