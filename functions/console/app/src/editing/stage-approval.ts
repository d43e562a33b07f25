// Whether a Rollout stage waits for an approval, as the approvals contract reads it: `approval.required`,
// or four eyes (`approval.distinctFromAuthor`, which implies it), or the deprecated `requireApproval`.
import { isJsonObject } from './json-values.ts';

export function stageNeedsApproval(stage: unknown): boolean {
  if (!isJsonObject(stage)) return false;
  const approval = isJsonObject(stage.approval) ? stage.approval : {};
  return stage.requireApproval === true || approval.required === true || approval.distinctFromAuthor === true;
}
