// A Rollout drawn as `kubectl argo rollouts get rollout` draws one: a summary, then a tree of its stages
// in order, each with its phase, what its approval needs or who gave it, and the run behind it.
import {
  type RolloutStageGate,
  type StageApprovalRecord,
  stageNeedsApproval,
  whoStillApproves,
} from '../../shared/contract/rules/rollout-stage.ts';
import { humanAge } from './human-duration.ts';
import type { RunRecord } from './runs-client.ts';
import { formatTable } from './table.ts';

/** The fields of a Rollout the tree shows (docs/resources.md, "Rollout"). */
export interface Rollout {
  metadata: { name: string; namespace?: string; creationTimestamp?: string };
  spec: {
    revision: string;
    description?: string;
    failurePolicy?: string;
    stages: RolloutStageSpec[];
  };
  status?: {
    phase?: string;
    currentStage?: number;
    startedAt?: string;
    finishedAt?: string;
    revisionAuthor?: { principal?: string; revision?: string };
    stages?: RolloutStageStatus[];
  };
}

/** A stage as the status records it (keyed by workspace); `approval` is written by the API server only. */
export interface RolloutStageStatus {
  workspace: string;
  phase?: string;
  runId?: string;
  approval?: { approvedBy?: string; approvedAt?: string };
  /** Each approval of the current revision so far, one per approver (issue 45 item 2). */
  approvals?: StageApprovalRecord[];
}

export type RolloutStageSpec = RolloutStageGate;

/** Whether a stage waits for an approval: the one rule (shared/contract/rules/rollout-stage.ts). */
export const needsApproval: (stage: RolloutStageSpec) => boolean = stageNeedsApproval;

/** What the tree needs besides the Rollout: the runs behind its stages, and whether the caller may approve. */
export interface TreeContext {
  runs: Map<string, RunRecord | Error>;
  /** The SelfSubjectAccessReview's answer for `approve` on this Rollout; undefined when not asked. */
  mayApprove: boolean | undefined;
  now: number;
  /** Summary lines of the Project's freeze and approval windows (approval-window-lines.ts); none when unread. */
  policyLines?: [string, string][];
}

const ICONS: Record<string, string> = {
  Succeeded: '✔',
  Applied: '✔',
  Failed: '✖',
  Cancelled: '⊘',
  AwaitingApproval: '॥',
  Progressing: '◌',
  Planning: '◌',
  Applying: '◌',
  Running: '◌',
  Pending: '○',
};

const status = (phase: string | undefined) => (phase ? `${ICONS[phase] ?? '?'} ${phase}` : '○ Pending');

/** The whole drawing: summary lines, a blank line, the tree table. */
export function drawRollout(rollout: Rollout, context: TreeContext): string {
  const { spec, metadata } = rollout;
  const state = rollout.status ?? {};
  const author = state.revisionAuthor?.revision === spec.revision ? state.revisionAuthor.principal : undefined;
  const summary: [string, string | undefined][] = [
    ['Name', metadata.name],
    ['Namespace', metadata.namespace],
    ['Status', status(state.phase)],
    ['Revision', author ? `${spec.revision} (by ${author})` : spec.revision],
    ['Stage', state.currentStage === undefined ? undefined : `${state.currentStage + 1}/${spec.stages.length}`],
    ['Failure policy', spec.failurePolicy ?? 'Halt'],
    ['Description', spec.description],
    ...(context.policyLines ?? []),
  ];
  const lines = summary
    .filter((entry): entry is [string, string] => Boolean(entry[1]))
    .map(([label, value]) => `${`${label}:`.padEnd(17)}${value}\n`)
    .join('');
  const rows: string[][] = [
    [`⟳ ${metadata.name}`, 'Rollout', status(state.phase), humanAge(metadata.creationTimestamp, context.now), ''],
  ];
  spec.stages.forEach((stage, index) => {
    const last = index === spec.stages.length - 1;
    const observed = state.stages?.find((candidate) => candidate.workspace === stage.workspace);
    rows.push([
      `${last ? '└' : '├'}──# ${index + 1} ${stage.workspace}`,
      'Stage',
      status(observed?.phase),
      '',
      stageInfo(rollout, stage, index, observed, context),
    ]);
    if (observed?.runId) {
      const run = context.runs.get(observed.runId);
      const runInfo = run instanceof Error ? run.message : run ? run.type : '';
      rows.push([
        `${last ? ' ' : '│'}  └──□ ${observed.runId}`,
        'Run',
        run && !(run instanceof Error) ? status(run.phase) : '? Unknown',
        run && !(run instanceof Error) ? humanAge(run.createdAt, context.now) : '',
        runInfo,
      ]);
    }
  });
  return `${lines}\n${formatTable(['NAME', 'KIND', 'STATUS', 'AGE', 'INFO'], rows).replace(/ +$/gm, '')}`;
}

function stageInfo(
  rollout: Rollout,
  stage: RolloutStageSpec,
  index: number,
  observed: RolloutStageStatus | undefined,
  context: TreeContext,
): string {
  if (!needsApproval(stage)) return '';
  const approval = observed?.approval;
  if (stage.approved)
    return approval?.approvedBy
      ? `approved by ${approval.approvedBy} ${humanAge(approval.approvedAt, context.now)} ago`
      : 'approved';
  // Who still has to approve (issue 45 item 2), by the server's rule.
  const still = whoStillApproves(rollout, stage);
  const fourEyes = `${stage.approval?.distinctFromAuthor ? ", not by the revision's author" : ''}${still ? ` (${still})` : ''}`;
  if (observed?.phase !== 'AwaitingApproval') return `approval required${fourEyes}`;
  if (context.mayApprove === true)
    return `awaiting approval${fourEyes}: kubectl platform rollouts approve ${rollout.metadata.name} --stage ${index + 1}`;
  return `awaiting approval${fourEyes}${context.mayApprove === false ? ' (you may not approve)' : ''}`;
}
