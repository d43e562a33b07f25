// Overrides in the console (issue 45, items 3 and 5): an incident commander approves a stage or applies a plan
// although the Project's approval windows, freeze or a soak time refuse, with a reason the dialog asks for and the
// server records (the audit trail; the stage's approval record or the apply run). Offered only where the user's
// rules allow `override` besides `approve` (the server's own review, as for every control); the server decides
// all the same, and its refusal is shown as it words it.
import type { ComponentChildren } from 'preact';
import { useId, useState } from 'preact/hooks';
import type { Api } from '../api.ts';
import type { ProjectPermissions } from '../access.ts';
import { type Run, runsPath } from '../platform-api.ts';
import { useStalePlanReason } from '../stale-plan.ts';
import { type PlanApprovalProps, type Rollout, type RolloutStage, applyAnswered } from './approvals.tsx';
import { ConfirmAction } from './confirm-action.tsx';

/** Whether the user may override the time gates of what `resource` (`rollouts`, `workspaces/runs`) names. */
export const mayOverride = (permissions: ProjectPermissions, resource: string, name: string): boolean =>
  permissions.may('approve', resource, name) && permissions.may('override', resource, name);

/** A confirmation that asks for the override's reason, and sends it with `send`; none given is refused here. */
function OverrideAction({
  trigger,
  triggerLabel,
  title,
  confirm,
  children,
  send,
}: {
  trigger: string;
  triggerLabel: string;
  title: string;
  confirm: string;
  children: ComponentChildren;
  send: (override: { reason: string }) => Promise<void>;
}) {
  const [reason, setReason] = useState('');
  const id = useId();
  const action = async () => {
    if (reason.trim() === '') throw new Error('Give a reason for the override: it is recorded in the audit trail.');
    await send({ reason });
  };
  return (
    <ConfirmAction trigger={trigger} triggerLabel={triggerLabel} title={title} confirm={confirm} danger action={action}>
      {children}
      <p>
        This acts although the Project's approval windows, its freeze or a soak time refuse it now. Nothing else is
        bypassed: approvals and four eyes still hold.
      </p>
      <label for={id}>Reason (recorded in the audit trail)</label>
      <textarea
        id={id}
        rows={3}
        required
        value={reason}
        onInput={(event) => setReason((event.target as HTMLTextAreaElement).value)}
      />
    </ConfirmAction>
  );
}

/** Approves one stage with an override: the approve route with `{"stage", "override": {"reason"}}`. */
export function OverrideStage({
  api,
  project,
  rollout,
  stage,
  onApproved,
}: {
  api: Api;
  project: string;
  rollout: Rollout;
  stage: RolloutStage;
  onApproved: (notice: string) => void;
}) {
  const name = rollout.metadata.name;
  const revision = rollout.spec?.revision ?? '(none)';
  return (
    <OverrideAction
      trigger="Override"
      triggerLabel={`Override the time gates for stage ${stage.workspace} of Rollout ${name}`}
      title={`Override the time gates and approve stage ${stage.workspace} of Rollout ${name}?`}
      confirm={`Override and approve ${stage.workspace}`}
      send={async (override) => {
        await api.post(`${runsPath(project)}/rollouts/${encodeURIComponent(name)}/approve`, {
          stage: stage.workspace,
          override,
        });
        onApproved(`Approved stage ${stage.workspace} of Rollout ${name} with an override: revision ${revision}.`);
      }}
    >
      <p>
        Revision <strong>{revision}</strong> will be applied to Workspace <strong>{stage.workspace}</strong> when the
        Rollout reaches it.
      </p>
    </OverrideAction>
  );
}

/** Applies a succeeded plan with an override: `POST .../runs/{plan}/apply` with `{"message", "override"}`. */
export function OverridePlanApply({ api, run, onRecorded }: PlanApprovalProps) {
  // A stale plan is refused whatever the windows say, and so is one its post-plan run tasks hold back (issue 48):
  // ApplyPlan shows why in its place.
  if (useStalePlanReason(run) || run.planApproval?.blockedBy) return null;
  return (
    <OverrideAction
      // The visible text is part of the accessible name (axe's label-content-name-mismatch).
      trigger="Override the time gates"
      triggerLabel={`Override the time gates for plan run ${run.id}`}
      title={`Override the time gates and apply plan run ${run.id}?`}
      confirm={`Override and apply plan ${run.id.slice(-8)}`}
      send={async (override) => {
        const answer = await api.post<Run>(`${runsPath(run.project)}/runs/${encodeURIComponent(run.id)}/apply`, {
          message: `approved from the console with an override: plan ${run.id}`,
          override,
        });
        applyAnswered(run, answer, `Started apply run ${answer.id} from plan ${run.id}, with an override.`, onRecorded);
      }}
    >
      <p>
        An apply run of Workspace <strong>{run.workspace}</strong> starts from plan run <strong>{run.id}</strong>.
      </p>
    </OverrideAction>
  );
}
