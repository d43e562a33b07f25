import { useState } from 'preact/hooks';
import type { ProjectPermissions } from '../access.ts';
import type { Api } from '../api.ts';
import { FINAL_PHASES, type Run, type TaskResult, runsPath } from '../platform-api.ts';
import { useLoaded } from '../use-loaded.ts';
import { DataTable, TimeCell } from './common.tsx';

const POLL_MS = 2_000;

/**
 * The results of a run's tasks (issue 48, docs/run-tasks.md), polled while the run is not final: each task's
 * stage, enforcement, status, message, link and outcomes, and who overrode a failure and why. Nothing when the
 * run has no task.
 */
export function RunTaskResults({
  api,
  run,
  permissions,
  onOverridden,
}: {
  api: Api;
  run: Run;
  permissions: ProjectPermissions;
  onOverridden: () => void;
}) {
  const path = `${runsPath(run.project)}/runs/${encodeURIComponent(run.id)}/task-results`;
  // A succeeded plan's post_plan tasks (issue 48) answer after the run is final: the run answer (polled by the
  // page) says while they do, and what holds the plan back.
  const blockedBy = run.planApproval?.blockedBy?.reason;
  const results = useLoaded(
    () => api.get<{ items: TaskResult[] }>(path),
    `${path} ${run.phase} ${blockedBy ?? ''}`,
    FINAL_PHASES.has(run.phase) && blockedBy !== 'RunTasksPending' ? undefined : POLL_MS,
  );
  const items = results.data?.items ?? [];
  if (items.length === 0) return null;
  return (
    <section aria-label="Run tasks">
      <h2>Run tasks</h2>
      <DataTable columns={['Task', 'Stage', 'Enforcement', 'Status', 'Message', 'Outcomes', 'Updated']}>
        {items.map((result) => (
          <tr key={result.id} data-testid={`task-result-${result.task}`}>
            <td>{result.url ? <a href={result.url}>{result.task}</a> : result.task}</td>
            <td>{result.stage}</td>
            <td>{result.enforcement}</td>
            <td>
              <span class={`phase task-${result.status}`}>{result.status}</span>
              {result.overriddenBy && ` (overridden by ${result.overriddenBy}: ${result.overrideReason})`}
            </td>
            <td class="wrap">{result.message || '—'}</td>
            <td>
              {result.outcomes.length === 0 ? (
                '—'
              ) : (
                <ul>
                  {result.outcomes.map((outcome) => (
                    <li key={outcome.outcomeId}>
                      {outcome.url ? <a href={outcome.url}>{outcome.outcomeId}</a> : outcome.outcomeId}:{' '}
                      {outcome.description}
                    </li>
                  ))}
                </ul>
              )}
            </td>
            <td>
              <TimeCell value={result.updatedAt} />
            </td>
          </tr>
        ))}
      </DataTable>
      {mayOverrideTasks(permissions, run, items) && <OverrideTasks api={api} run={run} onDone={onOverridden} />}
    </section>
  );
}

/**
 * Overriding a run failed on a mandatory task is `override` on `workspaces/runs` named by its Workspace, on a run
 * that failed before any claim with such a failure not yet overridden, or on a succeeded plan whose mandatory
 * post_plan task failed or timed out, not yet overridden (issue 48: its `planApproval.blockedBy` says
 * `RunTaskFailed`). The server decides again.
 */
export function mayOverrideTasks(permissions: ProjectPermissions, run: Run, results: readonly TaskResult[]): boolean {
  const failedBeforeClaim =
    run.phase === 'Failed' &&
    run.attempts === 0 &&
    results.some((result) => result.enforcement === 'mandatory' && result.status !== 'passed' && !result.overriddenBy);
  const planHeldBack = run.planApproval?.blockedBy?.reason === 'RunTaskFailed';
  return (failedBeforeClaim || planHeldBack) && permissions.may('override', 'workspaces/runs', run.workspace);
}

function OverrideTasks({ api, run, onDone }: { api: Api; run: Run; onDone: () => void }) {
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const override = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    try {
      await api.post(`${runsPath(run.project)}/runs/${encodeURIComponent(run.id)}/override-tasks`, { reason });
      setError(undefined);
      onDone();
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="actions" onSubmit={override} aria-label="Override the failed run tasks">
      <label>
        Reason (recorded in the audit trail){' '}
        <input value={reason} required maxLength={1024} onInput={(event) => setReason(event.currentTarget.value)} />
      </label>
      <button type="submit" class="danger" disabled={busy || reason.trim() === ''}>
        Override and proceed
      </button>
      {error && (
        <span class="error" role="alert">
          {error}
        </span>
      )}
    </form>
  );
}
