// The console's container (issue 24): FUNCTION_TARGET=console, `node dist/functions/console.mjs` once
// bundled. A static server only: it reads no admin, database or cluster setting.
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../../shared/base/config/config-error.ts';
import { createLogger } from '../../shared/base/logging/logger.ts';
import { onShutdownSignal, settingsOrExit, startOrExit } from '../node-http/start-up.ts';
import { startConsoleServer } from '../console-server/console-server.ts';

/** The build beside the bundles (dist/console from dist/functions/console.mjs), or dist/console of the checkout on the sources. */
const builtAssets = fileURLToPath(
  new URL(import.meta.url.endsWith('.mjs') ? '../console/' : '../../dist/console/', import.meta.url),
);

const settings = settingsOrExit(process.env);
const logger = createLogger({ level: settings.server.logLevel });
const running = await startOrExit(logger, async () => {
  const { apiBaseUrl, connectOrigins, assetsDir } = settings.console;
  if (!apiBaseUrl)
    throw new ConfigError('CONSOLE_API_BASE_URL', 'is required: the API origin, e.g. https://api.example.com');
  return startConsoleServer({
    apiBaseUrl,
    connectOrigins,
    assetsDir: assetsDir ?? builtAssets,
    port: settings.server.port,
    maxHeaderBytes: settings.server.maxHeaderBytes,
  });
});
// The same start-up line as every function's (the image build's compile-cache warm-up waits for it).
logger.info('function listening', { function: 'console', port: running.port, api: settings.console.apiBaseUrl });
onShutdownSignal(logger, () => running.close());
