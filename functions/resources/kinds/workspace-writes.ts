import { APPROVE_APPLIES, applyGatesTurnedOff } from '../../../shared/domain/approvals/workspace-apply-gates.ts';
import type { ClusterObjects } from '../../../shared/domain/resources/cluster-objects.ts';
import { WORKSPACE } from '../../../shared/contract/kinds/platform-kinds.ts';
import { judgedWrites, requireForResult } from './judged-writes.ts';
import { plainWrites, type ResourceWrites, type Writer } from './resource-writes.ts';

/**
 * A Workspace's writes for one request (issue 45, item 1): a write whose result turns an apply gate off
 * (`spec.allowApplyWithoutPlan` or `spec.autoApply` true where it was not) needs the right to approve the
 * Workspace's plans, `approve` on `workspaces/runs` of that Workspace, whatever the write's shape, a create
 * (or a re-create) included; 403 otherwise, and nothing is written.
 */
export function workspaceWrites(objects: ClusterObjects, writer: Writer): ResourceWrites {
  return judgedWrites(objects, WORKSPACE, plainWrites(objects, WORKSPACE), async (stored, result) => {
    if (applyGatesTurnedOff(stored, result).length === 0) return;
    await requireForResult(writer, {
      ...APPROVE_APPLIES,
      group: objects.apiGroup,
      namespace: result.metadata.namespace,
      name: result.metadata.name,
    });
  });
}
