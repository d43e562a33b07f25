import { isDeepStrictEqual } from 'node:util';
import { isJsonObject, type PlatformObject } from '../../contract/kinds/platform-object.ts';
import { stageRequirement, type ApprovalRequirement } from '../../contract/rules/rollout-stage.ts';

// A Project's approval policy (issue 45, items 1 and 2; docs/resources.md "Approvals"): `spec.approvalPolicy` of
// the Project, which the people it gates cannot change (it needs `update` on `projects/approvalpolicy`). A stage's
// effective gate is the policy's for (Rollout name, stage key) joined with what the Rollout's own fields ask: the
// Rollout may only ask for more. Removing a stage and adding it back, or re-creating the Rollout, meets the same
// policy, because the policy is not kept in the object it gates.

/**
 * What the policy asks of one gated stage or apply: an approval by `count` distinct approvers, at least one from
 * each of `groups`, none of them the author under four eyes.
 */
export type PolicyGate = ApprovalRequirement;

/** The verb and subresource a change of a Project's `spec.approvalPolicy` is authorized as. */
export const CHANGE_APPROVAL_POLICY = { verb: 'update', resource: 'projects', subresource: 'approvalpolicy' } as const;

/** The Project's `spec.approvalPolicy` as written (undefined: none). */
function approvalPolicy(project: PlatformObject | undefined): Record<string, unknown> | undefined {
  const policy = project?.spec?.approvalPolicy;
  return isJsonObject(policy) ? policy : undefined;
}

/** Whether a write of a Project changes its approval policy (a create with one, a delete-and-re-create, included). */
export function approvalPolicyChanged(stored: PlatformObject | undefined, result: PlatformObject): boolean {
  return !isDeepStrictEqual(approvalPolicy(stored), approvalPolicy(result));
}

/** The entries of one of the policy's lists that are objects; none when it is no list. */
function entries(policy: Record<string, unknown> | undefined, list: 'stages' | 'applies'): Record<string, unknown>[] {
  const value = policy?.[list];
  return Array.isArray(value) ? value.filter(isJsonObject) : [];
}

// The policy's `approvals` object reads as a stage's `approval` does: one rule for both.
const gateOf = (entry: Record<string, unknown>): PolicyGate => stageRequirement({ approval: entry.approvals });

/** The stages of Rollout `rollout` that the Project's policy gates, by their key (workspace). */
export function policyStageGates(project: PlatformObject | undefined, rollout: string): Map<string, PolicyGate> {
  const gates = new Map<string, PolicyGate>();
  for (const entry of entries(approvalPolicy(project), 'stages'))
    if (entry.rollout === rollout && typeof entry.stage === 'string') gates.set(entry.stage, gateOf(entry));
  return gates;
}

/** The policy's gate of Workspace `workspace`'s applies, if it has one. */
export function policyApplyGate(project: PlatformObject | undefined, workspace: string): PolicyGate | undefined {
  const entry = entries(approvalPolicy(project), 'applies').find((candidate) => candidate.workspace === workspace);
  return entry && gateOf(entry);
}

/** The stricter of two requirements: the larger count, every group of either, four eyes if either asks it. */
export function stricterRequirement(one: ApprovalRequirement, other: ApprovalRequirement): ApprovalRequirement {
  return {
    count: Math.max(one.count, other.count),
    groups: [...new Set([...one.groups, ...other.groups])],
    distinctFromAuthor: one.distinctFromAuthor || other.distinctFromAuthor,
  };
}

/**
 * The Rollout with each stage the policy gates at least as strict as the policy (`approval.required`,
 * `approval.distinctFromAuthor` where the policy asks four eyes, `approval.count` and `approval.groups` where it
 * asks more approvers or groups), and the stages it tightened. The server writes
 * the effective gate into the Rollout, so that whatever reads the Rollout (a controller, the plugin, the console)
 * sees the gate that holds.
 */
export function withPolicyGates(
  rollout: PlatformObject,
  gates: ReadonlyMap<string, PolicyGate>,
): { result: PlatformObject; tightened: string[] } {
  const stages = rollout.spec?.stages;
  if (gates.size === 0 || !Array.isArray(stages)) return { result: rollout, tightened: [] };
  const tightened: string[] = [];
  const written = stages.map((stage: unknown) => {
    if (!isJsonObject(stage) || typeof stage.workspace !== 'string') return stage;
    const gate = gates.get(stage.workspace);
    if (!gate) return stage;
    const approval = isJsonObject(stage.approval) ? stage.approval : {};
    const asked = stricterRequirement(stageRequirement(stage), gate);
    const strict = {
      ...approval,
      required: true,
      ...(asked.distinctFromAuthor ? { distinctFromAuthor: true } : {}),
      ...(asked.count > 1 ? { count: asked.count } : {}),
      ...(asked.groups.length > 0 ? { groups: asked.groups } : {}),
    };
    if (isDeepStrictEqual(strict, approval)) return stage;
    tightened.push(stage.workspace);
    return { ...stage, approval: strict };
  });
  return tightened.length === 0
    ? { result: rollout, tightened }
    : { result: { ...rollout, spec: { ...rollout.spec, stages: written } }, tightened };
}
