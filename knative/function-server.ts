import type { AppContextOptions } from '../shared/app/app-context.ts';
import type { Environment } from '../shared/config/server-config.ts';
import type { RunningServer } from '../shared/server/running-server.ts';
import { FUNCTION_FACTORIES } from '../functions/function-registry.ts';
import { serveFunction } from './function-container.ts';
import { functionTarget } from './function-target.ts';

/** The Knative container of FUNCTION_TARGET, started in this process (tests, benchmarks). */
export async function startFunctionServer(env: Environment, options: AppContextOptions & { host?: string } = {}): Promise<RunningServer> {
  const target = functionTarget(env);
  return serveFunction(target, FUNCTION_FACTORIES[target], env, options);
}
