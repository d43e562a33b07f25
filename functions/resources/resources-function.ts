import type { AppContext } from '../../shared/app/app-context.ts';
import { jsonResponse } from '../../shared/http/api-request.ts';
import type { FunctionDefinition } from '../../shared/runtime/function-definition.ts';

/** The resources function: Kubernetes-style REST for the platform's kinds and the run records. */
export function createResourcesFunction(context: AppContext): FunctionDefinition {
  return {
    name: 'resources',
    handlers: {
      listProjects: () => jsonResponse(200, { apiVersion: `${context.config.apiGroup}/v1alpha1`, kind: 'ProjectList', metadata: {}, items: [] }),
    },
  };
}
