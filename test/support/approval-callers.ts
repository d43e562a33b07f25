// The callers of the approval tests (issue 37): ServiceAccounts with namespaced Roles in TEAM_PROJECT that write
// Rollouts with and without the `approve` verb, and one that may only approve; and the Rollouts they act on.
import { beforeAll } from 'vitest';
import type { V1PolicyRule } from '@kubernetes/client-node';
import { TEST_NAMESPACE } from './identity-cluster.ts';
import { API, GROUP, TEAM_PROJECT, bindRole, expectStatus, send, type Platform } from './platform-fixture.ts';

/** Writes Rollouts and their status: every verb a write needs, never `approve`. */
const WRITER_VERBS = ['get', 'list', 'watch', 'create', 'update', 'patch'];
const STATUS_RULE: V1PolicyRule = {
  apiGroups: [GROUP],
  resources: ['rollouts/status'],
  verbs: ['get', 'update', 'patch'],
};

/** Each caller's Role in TEAM_PROJECT. */
const ROLES: Record<string, V1PolicyRule[]> = {
  // `patch` (and the other writes) but not `approve`.
  'rollout-writer': [{ apiGroups: [GROUP], resources: ['rollouts'], verbs: WRITER_VERBS }, STATUS_RULE],
  // The writes and `approve`, as the approver ClusterRole of docs/resources.md grants it with the edit role.
  'rollout-approver': [
    { apiGroups: [GROUP], resources: ['rollouts'], verbs: [...WRITER_VERBS, 'approve'] },
    STATUS_RULE,
  ],
  'second-approver': [
    { apiGroups: [GROUP], resources: ['rollouts'], verbs: [...WRITER_VERBS, 'approve'] },
    STATUS_RULE,
  ],
  // `approve` alone: the approve route needs nothing else.
  'approve-only': [{ apiGroups: [GROUP], resources: ['rollouts'], verbs: ['approve'] }],
};
export type ApprovalCaller = keyof typeof ROLES;

/** The user a caller's token authenticates as (what runs and approval records name). */
export const userOf = (caller: ApprovalCaller) => `system:serviceaccount:${TEST_NAMESPACE}:${caller}`;

/** Creates the callers once for the test file; the returned function gives a caller's token. */
export function useApprovalCallers(platform: () => Platform): (caller: ApprovalCaller) => string {
  const tokens = new Map<string, string>();
  beforeAll(async () => {
    const { cluster } = platform();
    for (const [caller, rules] of Object.entries(ROLES)) {
      await cluster.createServiceAccount(caller);
      await bindRole(cluster, TEAM_PROJECT, caller, rules, caller);
      tokens.set(caller, await cluster.mintToken(caller));
    }
  });
  return (caller) => tokens.get(caller)!;
}

/** The stages of the Rollouts these tests make: one without a gate, one that needs approval, one under four eyes. */
export const STAGES = [
  { workspace: 'staging' },
  { workspace: 'prod', approval: { required: true } },
  { workspace: 'prod-eu', approval: { required: true, distinctFromAuthor: true } },
];

export const rolloutPath = (name: string) => `${API}/namespaces/${TEAM_PROJECT}/rollouts/${name}`;

export function rolloutObject(name: string, revision = 'r1', stages: unknown[] = STAGES): Record<string, unknown> {
  return { apiVersion: `${GROUP}/v1alpha1`, kind: 'Rollout', metadata: { name }, spec: { revision, stages } };
}

/** Creates a Rollout through the API as `token`'s principal (its revision's author). */
export async function createRollout(platform: () => Platform, token: string, name: string, revision = 'r1') {
  return send(
    platform().gateway.url,
    token,
    'POST',
    `${API}/namespaces/${TEAM_PROJECT}/rollouts`,
    rolloutObject(name, revision),
  ).then(expectStatus(201));
}
