// The internal function's container: `node dist/functions/internal.mjs` once bundled (npm run build).
import { internalFunction } from '../../../functions/internal/internal-function.ts';
import { runFunctionContainer } from '../function-container.ts';

await runFunctionContainer(internalFunction);
