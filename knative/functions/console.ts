// The console's container (issue 24): FUNCTION_TARGET=console, `node dist/functions/console.mjs` once
// bundled. A static server only: it reads no admin, database or cluster settings.
import { fileURLToPath } from 'node:url';
import { createLogger } from '../../shared/logging/logger.ts';
import { onShutdownSignal, startOrExit } from '../../shared/server/start-up.ts';
import { consoleSettings } from '../../functions/console/server/console-settings.ts';
import { startConsoleServer } from '../../functions/console/server/console-server.ts';

/** The build beside the bundles (dist/console from dist/functions/console.mjs), or dist/console of the checkout on the sources. */
const builtAssets = fileURLToPath(
  new URL(import.meta.url.endsWith('.mjs') ? '../console/' : '../../dist/console/', import.meta.url),
);

const logger = createLogger({ level: 'info' });
const running = await startOrExit(logger, async () => {
  const settings = consoleSettings(process.env);
  return startConsoleServer({ ...settings, assetsDir: settings.assetsDir ?? builtAssets });
});
logger.info('console listening', { port: running.port });
onShutdownSignal(logger, () => running.close());
