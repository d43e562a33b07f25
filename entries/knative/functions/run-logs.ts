// The run-logs function's container: `node dist/functions/run-logs.mjs` once bundled (npm run build).
import { runLogsFunction } from '../../../functions/run-logs/run-logs-function.ts';
import { runFunctionContainer } from '../function-container.ts';

await runFunctionContainer(runLogsFunction);
