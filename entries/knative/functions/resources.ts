// The resources function's container: `node dist/functions/resources.mjs` once bundled (npm run build).
import { resourcesFunction } from '../../../functions/resources/resources-function.ts';
import { runFunctionContainer } from '../function-container.ts';

await runFunctionContainer(resourcesFunction);
