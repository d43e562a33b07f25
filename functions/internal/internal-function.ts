import type { AppContext } from '../../shared/app/app-context.ts';
import { notFound } from '../../shared/http/api-error.ts';
import type { FunctionDefinition } from '../../shared/runtime/function-definition.ts';

/** The internal function: routes of the workspace controller under /internal/*. */
export function createInternalFunction(_context: AppContext): FunctionDefinition {
  return {
    name: 'internal',
    handlers: {
      internal: (request) => {
        throw notFound(`no internal route ${request.method} ${request.path}`);
      },
    },
  };
}
