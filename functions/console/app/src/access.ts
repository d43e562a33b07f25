// Only what you may do (issue 24, item 5): a write button is shown when a SelfSubjectAccessReview
// for its verb, resource and namespace says allowed — the same review `kubectl auth can-i` sends.
import { useEffect, useState } from 'preact/hooks';
import type { Api } from './api.ts';

export interface ResourceAttributes {
  namespace: string;
  verb: string;
  group: string;
  resource: string;
  subresource?: string;
  name?: string;
}

export async function isAllowed(api: Api, attributes: ResourceAttributes): Promise<boolean> {
  const review = await api.post<{ status?: { allowed?: boolean } }>(
    '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
    {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes: attributes },
    },
  );
  return review.status?.allowed === true;
}

/**
 * Whether the caller may: false until the review answers (a button never flashes into view and out),
 * and while `attributes` is not known yet (no review is sent then).
 */
export function useAllowed(api: Api, attributes: ResourceAttributes | undefined): boolean {
  const [allowed, setAllowed] = useState(false);
  const key = JSON.stringify(attributes ?? null);
  useEffect(() => {
    let live = true;
    setAllowed(false);
    if (attributes)
      isAllowed(api, attributes).then(
        (answer) => live && setAllowed(answer),
        () => live && setAllowed(false),
      );
    return () => {
      live = false;
    };
  }, [key]);
  return allowed;
}
