import { useState } from 'preact/hooks';
import type { ProjectPermissions } from '../access.ts';
import type { Api } from '../api.ts';
import { FINAL_PHASES, type Run, runsPath } from '../platform-api.ts';

export function CancelButton({ api, run, onDone }: { api: Api; run: Run; onDone: (error?: string) => void }) {
  const [busy, setBusy] = useState(false);
  if (FINAL_PHASES.has(run.phase) || run.cancelRequestedAt) return null;
  const cancel = async () => {
    setBusy(true);
    try {
      await api.post(`${runsPath(run.project)}/runs/${encodeURIComponent(run.id)}/cancel`);
      onDone();
    } catch (error) {
      onDone(error instanceof Error ? error.message : String(error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <button
      type="button"
      class="danger"
      disabled={busy}
      onClick={cancel}
      aria-label={`Cancel ${run.type} run ${run.id}`}
    >
      Cancel
    </button>
  );
}

/** Starting and cancelling are both authorized as `create` on `workspaces/runs` named by the Workspace (spec, run routes). */
export function mayRun(permissions: ProjectPermissions, workspace: string | undefined): boolean {
  return workspace !== undefined && permissions.may('create', 'workspaces/runs', workspace);
}

/** Applying a plan as reviewed is `approve` on `workspaces/runs` named by the Workspace (the approvals contract). */
export function mayApplyPlan(permissions: ProjectPermissions, run: Run): boolean {
  return (
    run.type === 'plan' && run.phase === 'Succeeded' && permissions.may('approve', 'workspaces/runs', run.workspace)
  );
}
