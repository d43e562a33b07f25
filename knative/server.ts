// Container entry point of every function image: `node knative/server.ts` with FUNCTION_TARGET set.
import { createLogger, logLevelFromEnv } from '../shared/logging/logger.ts';
import { onShutdownSignal, startOrExit } from '../shared/server/start-up.ts';
import { startFunctionServer } from './function-server.ts';
import { localDataDir } from '../shared/local/local-data.ts';

const logger = createLogger({ level: logLevelFromEnv(process.env.LOG_LEVEL) });
// Outside production without a cluster or database configured, one function alone uses the checkout's local state.
const running = await startOrExit(logger, () => startFunctionServer(process.env, { logger, localDataDir: localDataDir(process.env) }));
// Knative's default termination grace is 30 s; finish in-flight requests well inside it.
onShutdownSignal(logger, () => running.close(25_000));
