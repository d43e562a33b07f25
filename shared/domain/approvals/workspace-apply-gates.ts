import { isJsonObject, type PlatformObject } from '../../contract/kinds/platform-object.ts';

// A Workspace's apply gates (issue 45, item 1; docs/resources.md "Approvals"): an apply comes only from a plan
// someone approved, unless `spec.allowApplyWithoutPlan` (an apply started directly) or `spec.autoApply` (a
// succeeded plan applied without approval) turns the gate off. Turning one off is as good as approving every
// apply to come, so it needs the right to approve: `approve` on `workspaces/runs` of that Workspace.

/** The fields that turn a Workspace's apply gates off. */
export const APPLY_GATE_SWITCHES = ['allowApplyWithoutPlan', 'autoApply'] as const;

/** The verb and resource that approving a Workspace's plans is authorized as (and turning its gates off). */
export const APPROVE_APPLIES = { verb: 'approve', resource: 'workspaces', subresource: 'runs' } as const;

/** The gate switches a write turns on: on in its result, not on in the stored object (none: a create). */
export function applyGatesTurnedOff(stored: PlatformObject | undefined, result: PlatformObject): string[] {
  const on = (object: PlatformObject | undefined, field: string) =>
    isJsonObject(object?.spec) && object.spec[field] === true;
  return APPLY_GATE_SWITCHES.filter((field) => on(result, field) && !on(stored, field));
}
