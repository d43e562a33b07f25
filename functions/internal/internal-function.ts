import type { AppContext } from '../../shared/app/app-context.ts';
import { notFound } from '../../shared/http/api-error.ts';
import type { FunctionDefinition } from '../../shared/runtime/function-definition.ts';

/** The internal function: routes of the workspace controller under /internal/*. */
export function createInternalFunction(context: AppContext): FunctionDefinition {
  return {
    name: 'internal',
    handlers: {
      // Every call is a non-resource SubjectAccessReview first, so RBAC (nonResourceURLs) decides who may call what.
      internal: async (request) => {
        await context.authorizer.authorize(request.principal!, { nonResourcePath: request.path, verb: request.method.toLowerCase() });
        throw notFound(`no internal route ${request.method} ${request.path}`);
      },
    },
  };
}
