// Container entry point of every function image, FUNCTION_TARGET choosing the function:
// `node knative/server.ts` on the sources, or its bundle `node dist/entry.mjs` (npm run build).
// Either loads only that function's own module: knative/functions/<name>.ts, or its bundle
// dist/functions/<name>.mjs beside dist/entry.mjs.
import { createLogger } from '../shared/base/logging/logger.ts';
import { settingsOrExit, startOrExit } from './node-http/start-up.ts';
import { CONSOLE_TARGET, functionTarget } from './function-target.ts';
import { siblingModule } from '../shared/base/node/sibling-module.ts';

// The chosen module parses the settings again as its own entry point (it also runs alone).
const settings = settingsOrExit(process.env);
const logger = createLogger({ level: settings.server.logLevel });
// The console (issue 24) is the image's static server, not an API function.
const target =
  settings.runtime.functionTarget === CONSOLE_TARGET
    ? CONSOLE_TARGET
    : await startOrExit(logger, async () => functionTarget(settings.runtime));
await import(siblingModule(`functions/${target}`, import.meta.url).href);
