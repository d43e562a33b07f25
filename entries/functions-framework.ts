// Entry point for Google's functions-framework (package.json "main", what a Cloud Functions source
// deploy runs): `npx functions-framework --target=<function> [--port=<port>]`. Only the function named
// by --target (or FUNCTION_TARGET) is built and registered. The product alone: run from a checkout
// without a cluster or database, use the development entry (infra/development/entries/functions-framework.ts).
import { registerFrameworkTarget } from './functions-framework-target.ts';

await registerFrameworkTarget();
