// Whether the caller may approve a Rollout's stages, asked as `kubectl auth can-i approve rollouts/NAME`
// asks it (a SelfSubjectAccessReview, answered by the authorizer the approve route uses), so the tree
// offers the approve command only to those whom the server would let approve.
import type { PlatformConnection } from './platform-connection.ts';
import type { Rollout } from './rollout-tree.ts';

/** The review's answer; undefined when it could not be asked (the answer is then not shown). */
export async function mayApproveRollout(
  connection: PlatformConnection,
  group: string,
  rollout: Rollout,
): Promise<boolean | undefined> {
  const answer = await connection
    .send('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: {
        resourceAttributes: {
          namespace: rollout.metadata.namespace ?? connection.namespace,
          verb: 'approve',
          group,
          resource: 'rollouts',
          name: rollout.metadata.name,
        },
      },
    })
    .catch(() => undefined);
  if (!answer || answer.status < 200 || answer.status > 299) return undefined;
  return (answer.body as { status?: { allowed?: boolean } }).status?.allowed === true;
}
