// Approvals in the console (issue 40, item 3; the approvals contract of issue 37): a Rollout's stages
// that wait for an approval, approved with one click and a confirmation naming the revision and the
// stage (`POST .../rollouts/{rollout}/approve`); and a succeeded plan applied as reviewed, with a
// confirmation naming the plan run, its Workspace and its message (`POST .../runs/{run}/apply`), which records one
// approval of several where the Project's policy asks more (issue 45, item 2: a 202 answers the plan).
// Each control shows only where the user's rules allow `approve`; the server decides all the same,
// and its refusal (the revision's own author under four eyes, say) is shown as it words it.
import type { Api } from '../api.ts';
import { planStillNeeds } from '../../../../../shared/contract/rules/plan-approval-progress.ts';
import { stageNeedsApproval } from '../../../../../shared/contract/rules/rollout-stage.ts';
import { leaveNotice } from '../notices.ts';
import { type KubeObject, type Run, runsPath } from '../platform-api.ts';
import { href, navigate } from '../router.ts';
import { useStalePlanReason } from '../stale-plan.ts';
import { ConfirmAction } from './confirm-action.tsx';

export interface RolloutStage {
  workspace: string;
  requireApproval?: boolean;
  approval?: { required?: boolean; distinctFromAuthor?: boolean; count?: number; groups?: string[] };
  approved?: boolean;
}

export interface RolloutSpec {
  revision?: string;
  description?: string;
  failurePolicy?: string;
  stages?: RolloutStage[];
}

/** What the server writes of a Rollout (never trusted from clients): who wrote the revision, each stage's progress and approval. */
export interface RolloutStatus {
  phase?: string;
  currentStage?: number;
  revisionAuthor?: { principal?: string; revision?: string; changedAt?: string };
  stages?: {
    workspace: string;
    phase?: string;
    runId?: string;
    approval?: { approvedBy?: string; approvedAt?: string };
  }[];
}

export type Rollout = KubeObject<RolloutSpec> & { status?: RolloutStatus };

/** The stages that need an approval and do not have it yet, in order. */
export function stagesAwaitingApproval(rollout: Rollout): { stage: RolloutStage; index: number }[] {
  return (rollout.spec?.stages ?? []).flatMap((stage, index) =>
    stageNeedsApproval(stage) && stage.approved !== true ? [{ stage, index }] : [],
  );
}

/** The revision's author as the server recorded it, when it is the author of the revision now in the spec. */
export function revisionAuthor(rollout: Rollout): string | undefined {
  const author = rollout.status?.revisionAuthor;
  return author?.principal && author.revision === rollout.spec?.revision ? author.principal : undefined;
}

export function ApproveStage({
  api,
  project,
  rollout,
  stage,
  index,
  onApproved,
}: {
  api: Api;
  project: string;
  rollout: Rollout;
  stage: RolloutStage;
  index: number;
  /** Told what was approved, once the server has it. */
  onApproved: (notice: string) => void;
}) {
  const name = rollout.metadata.name;
  const revision = rollout.spec?.revision ?? '(none)';
  const count = rollout.spec?.stages?.length ?? 0;
  const author = revisionAuthor(rollout);
  const approve = async () => {
    await api.post(`${runsPath(project)}/rollouts/${encodeURIComponent(name)}/approve`, { stage: stage.workspace });
    onApproved(`Approved stage ${stage.workspace} of Rollout ${name}: revision ${revision}.`);
  };
  return (
    <ConfirmAction
      trigger="Approve"
      triggerLabel={`Approve stage ${stage.workspace} of Rollout ${name}`}
      title={`Approve stage ${stage.workspace} of Rollout ${name}?`}
      confirm={`Approve revision ${revision} for ${stage.workspace}`}
      action={approve}
    >
      <p>
        Revision <strong>{revision}</strong> will be applied to Workspace <strong>{stage.workspace}</strong> (stage{' '}
        {index + 1} of {count}) when the Rollout reaches it.
      </p>
      {rollout.spec?.description && <p>What the change is: {rollout.spec.description}</p>}
      {stage.approval?.distinctFromAuthor && (
        <p>Four eyes: the revision's author{author ? ` (${author})` : ''} may not approve it.</p>
      )}
    </ConfirmAction>
  );
}

/** What the controls that approve a plan for apply are given: the plan, and whom to tell of an approval recorded. */
export interface PlanApprovalProps {
  api: Api;
  run: Run;
  /** Told when the approval was recorded and the plan waits for more (202); without it, the plan's page opens. */
  onRecorded?: (notice: string) => void;
}

/**
 * A succeeded plan run, applied exactly as it was reviewed: one click, confirmed by naming the plan, its
 * Workspace and its message. Not offered once the plan is stale, as the server states it (issue 44,
 * item 15): the reason stands in its place. Disabled, with the server's reason, while its post_plan run tasks hold
 * it back (issue 48: `planApproval.blockedBy`).
 */
export function ApplyPlan({ api, run, onRecorded }: PlanApprovalProps) {
  const stale = useStalePlanReason(run);
  if (stale)
    return (
      <span class="muted" data-testid="plan-stale">
        {stale}
      </span>
    );
  // Issue 48: what else holds the plan back (its post-plan run tasks) disables the approval, in the server's words.
  const blocked = run.planApproval?.blockedBy;
  if (blocked)
    return (
      <span>
        <button type="button" disabled aria-label={`Apply plan run ${run.id}`} aria-describedby={`blocked-${run.id}`}>
          Apply plan
        </button>{' '}
        <span class="muted" id={`blocked-${run.id}`} data-testid="plan-apply-blocked">
          {blocked.message}
        </span>
      </span>
    );
  const still = run.planApproval ? planStillNeeds(run.planApproval) : '';
  const apply = async () => {
    const answer = await api.post<Run>(`${runsPath(run.project)}/runs/${encodeURIComponent(run.id)}/apply`, {
      message: `approved from the console: plan ${run.id}`,
    });
    applyAnswered(run, answer, `Started apply run ${answer.id} from plan ${run.id}.`, onRecorded);
  };
  return (
    <ConfirmAction
      // The visible text is the start of the accessible name (axe's label-content-name-mismatch).
      trigger="Apply plan"
      triggerLabel={`Apply plan run ${run.id}`}
      title={`Apply plan run ${run.id}?`}
      confirm={`Apply plan ${run.id.slice(-8)} to ${run.workspace}`}
      action={apply}
    >
      <p>
        An apply run of Workspace <strong>{run.workspace}</strong> starts from plan run <strong>{run.id}</strong>, and
        applies what that plan showed.
      </p>
      <p>
        The plan's message: {run.message ? <q>{run.message}</q> : 'none'}. Planned by {run.principal}
        {run.finishedAt ? `, finished ${new Date(run.finishedAt).toLocaleString()}` : ''}.
      </p>
      {still && (
        <p>
          Still needed: {still}. Your approval is recorded, and the apply starts with the approval that meets the
          Project's policy.
        </p>
      )}
    </ConfirmAction>
  );
}

/**
 * After `POST .../runs/{plan}/apply` (issue 45, item 2): a 201 answers the new apply run, whose page opens with
 * `started`; a 202 answers the plan itself, whose approval was recorded while the policy asks for more, and the
 * user is told who still has to approve (on the plan's page by `onRecorded`, from elsewhere on the plan's page).
 */
export function applyAnswered(plan: Run, answer: Run, started: string, onRecorded?: (notice: string) => void): void {
  if (answer.type === 'apply') {
    leaveNotice(started);
    navigate(href('projects', plan.project, 'runs', answer.id));
    return;
  }
  const still = answer.planApproval ? planStillNeeds(answer.planApproval) : '';
  const notice = `Approval of plan ${plan.id} recorded.${still ? ` Still needed: ${still}.` : ''}`;
  if (onRecorded) onRecorded(notice);
  else {
    leaveNotice(notice);
    navigate(href('projects', plan.project, 'runs', plan.id));
  }
}
