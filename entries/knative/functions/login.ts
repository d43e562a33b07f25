// The login function's container: `node dist/functions/login.mjs` once bundled (npm run build).
import { loginFunction } from '../../../functions/login/login-function.ts';
import { runFunctionContainer } from '../function-container.ts';

await runFunctionContainer(loginFunction);
