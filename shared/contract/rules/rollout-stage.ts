// A Rollout stage's gate as every reader reads it (issue 43, item 7: one rule for the server, the plugin, the
// console and the development controller). Browser-safe: plain TypeScript, no node: import. The server writes the
// effective gate (the Project's approval policy joined with the Rollout's own fields, issue 45) into these fields.

/** The gate fields of a stage of a Rollout's `spec.stages[]`. */
export interface RolloutStageGate {
  workspace: string;
  /** Deprecated: `approval.required`. True here also requires approval. */
  requireApproval?: boolean;
  approval?: { required?: boolean; distinctFromAuthor?: boolean };
  approved?: boolean;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Whether a stage waits for an approval: `approval.required`, four eyes (`approval.distinctFromAuthor`, which
 * implies it), or the deprecated `requireApproval`; read leniently (what is malformed the cluster refuses).
 */
export function stageNeedsApproval(stage: unknown): boolean {
  if (!isObject(stage)) return false;
  const approval = isObject(stage.approval) ? stage.approval : {};
  return stage.requireApproval === true || approval.required === true || approval.distinctFromAuthor === true;
}
