// What reached the cluster while a request was served: the server's own calls (its ServiceAccount) and
// the SubjectAccessReviews it asked, read from the emulator's record of every request as received.
import type { KubeEmulator, RecordedRequest } from '../../infra/kube-emulator/index.ts';

/** The emulator's admin user: the identity the test gateway's kubeconfig gives the API server. */
export const SERVER_IDENTITY = 'kubernetes-admin';

/** What one SubjectAccessReview asked about. */
export interface ReviewedAttributes {
  verb: string;
  group?: string;
  resource?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  path?: string;
}

export interface ClusterTraffic {
  /** The server's own calls on objects (reviews, ServiceAccount caches and discovery left out). */
  executed: RecordedRequest[];
  reviews: ReviewedAttributes[];
}

// The verifier's own traffic: reviews, the claim index's ServiceAccount watch, key discovery.
const VERIFIER_RESOURCES = new Set(['tokenreviews', 'subjectaccessreviews', 'selfsubjectreviews', 'serviceaccounts']);

/** Records the cluster traffic of each `during` call. */
export function clusterAudit(emulator: KubeEmulator) {
  return {
    async during<T>(work: () => Promise<T>): Promise<{ result: T } & ClusterTraffic> {
      const recorded: RecordedRequest[] = [];
      const stop = emulator.observeRequests((request) => recorded.push(request));
      try {
        const result = await work();
        return { result, ...split(recorded) };
      } finally {
        stop();
      }
    },
  };
}

function split(recorded: RecordedRequest[]): ClusterTraffic {
  const executed = recorded.filter(
    (request) =>
      request.user === SERVER_IDENTITY &&
      request.info.isResourceRequest &&
      !VERIFIER_RESOURCES.has(request.info.resource),
  );
  const reviews = recorded
    .filter((request) => request.info.resource === 'subjectaccessreviews')
    .map((request) => {
      const spec = (
        JSON.parse(request.body) as {
          spec: { resourceAttributes?: ReviewedAttributes; nonResourceAttributes?: ReviewedAttributes };
        }
      ).spec;
      return (spec.resourceAttributes ?? spec.nonResourceAttributes)!;
    });
  return { executed, reviews };
}
