import type { AppContextOptions } from '../shared/server/app/app-context.ts';
import type { Settings } from '../shared/base/config/settings.ts';
import type { RunningServer } from './node-http/running-server.ts';
import { FUNCTION_MODULES } from '../functions/function-registry.ts';
import { serveFunction } from './function-container.ts';
import { functionTarget } from './function-target.ts';

/** The Knative container of FUNCTION_TARGET, started in this process (tests, benchmarks). */
export async function startFunctionServer(
  settings: Settings,
  options: AppContextOptions & { host?: string } = {},
): Promise<RunningServer> {
  const target = functionTarget(settings.runtime);
  return serveFunction(FUNCTION_MODULES[target], settings, options);
}
