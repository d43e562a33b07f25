// Container entry point of every function image, FUNCTION_TARGET choosing the function:
// `node knative/server.ts` on the sources, or its bundle `node dist/entry.mjs` (npm run build).
// Either loads only that function's own module: knative/functions/<name>.ts, or its bundle
// dist/functions/<name>.mjs beside dist/entry.mjs.
import { createLogger, logLevelFromEnv } from '../shared/logging/logger.ts';
import { startOrExit } from '../shared/server/start-up.ts';
import { functionTarget } from './function-target.ts';
import { siblingModule } from '../shared/runtime/sibling-module.ts';

const logger = createLogger({ level: logLevelFromEnv(process.env.LOG_LEVEL) });
const target = await startOrExit(logger, async () => functionTarget(process.env));
await import(siblingModule(`functions/${target}`, import.meta.url).href);
