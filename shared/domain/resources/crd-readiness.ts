import type { KubernetesRestClient } from '../../base/kubernetes/kubernetes-rest-client.ts';
import { API_VERSION, PLATFORM_KINDS } from '../../contract/kinds/platform-kinds.ts';
import { apiError, retryAfter } from '../../base/http/error-catalogue.ts';

/**
 * Resolves when the cluster serves every platform kind (the chart's CRDs are installed); throws
 * ApiError 503 naming the missing ones otherwise, so `/readyz` says why rather than every
 * resource route answering 404. Asked through API discovery, which every ServiceAccount may read.
 */
export async function checkPlatformCrdsServed(rest: KubernetesRestClient, apiGroup: string): Promise<void> {
  const answer = await rest.call({ method: 'GET', path: `/apis/${apiGroup}/${API_VERSION}` });
  const served = new Set(
    answer.status === 200
      ? ((answer.body as { resources?: Array<{ name: string }> }).resources ?? []).map((resource) => resource.name)
      : [],
  );
  const missing = PLATFORM_KINDS.map((kind) => kind.plural).filter((plural) => !served.has(plural));
  if (missing.length > 0) {
    throw apiError(
      'CustomResourceDefinitionsMissing',
      `the cluster does not serve ${missing.join(', ')}.${apiGroup}: install the CustomResourceDefinitions (\`npm run local:setup\` in a checkout, or the chart)`,
      retryAfter(10),
    );
  }
}
