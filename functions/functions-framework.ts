// Entry point for Google's functions-framework (and its local emulation):
//   npx functions-framework --source=functions/functions-framework.ts --target=<function>
// Every function is registered under its name; the framework serves the one named by --target.
import * as functions from '@google-cloud/functions-framework';
import { createAppContext } from '../shared/app/app-context.ts';
import { createFunctionsFrameworkHandler } from '../shared/adapters/functions-framework.ts';
import { FUNCTION_NAMES } from '../shared/routes/route-table.ts';
import { createFunctionHandler } from './function-registry.ts';

const context = await createAppContext(process.env);
for (const name of FUNCTION_NAMES) {
  functions.http(name, createFunctionsFrameworkHandler(createFunctionHandler(name, context), context.config));
}
