// The public-config function's container: `node dist/functions/public-config.mjs` once bundled (npm run build).
import { publicConfigFunction } from '../../../functions/public-config/public-config-function.ts';
import { runFunctionContainer } from '../function-container.ts';

await runFunctionContainer(publicConfigFunction);
