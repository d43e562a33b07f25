import { useState } from 'preact/hooks';
import { READ_AUDIT, useAllowed, useProjectPermissions } from '../access.ts';
import type { Api } from '../api.ts';
import { FINAL_PHASES, type Run, runsPath } from '../platform-api.ts';
import { href } from '../router.ts';
import { RunLogView } from '../run-log/index.ts';
import { currentToken } from '../session.ts';
import { unclaimedNotice } from '../../../../../shared/contract/rules/unclaimed-run.ts';
import { useLoaded } from '../use-loaded.ts';
import { ApplyPlan } from './approvals.tsx';
import { OverridePlanApply, mayOverride } from './override-action.tsx';
import { LoadedView, PageNotice, PageTitle, TimeCell } from './common.tsx';
import { PlanApprovals } from './plan-approvals.tsx';
import { CancelButton, mayApplyPlan, mayRun } from './run-actions.tsx';
import { RunTaskResults } from './run-tasks.tsx';

const POLL_MS = 2_000;

/** A run's header (live by polling until it is final) and its log, streamed by the run-log viewer. */
export function RunPage({
  api,
  project,
  runId,
  onUnauthorized,
}: {
  api: Api;
  project: string;
  runId: string;
  onUnauthorized: (reason: string) => void;
}) {
  const path = `${runsPath(project)}/runs/${encodeURIComponent(runId)}`;
  const run = useLoaded(() => api.get<Run>(path), path, POLL_MS);
  const permissions = useProjectPermissions(api, project);
  const mayCancel = mayRun(permissions, run.data?.workspace);
  const mayReadAudit = useAllowed(api, READ_AUDIT);
  const token = currentToken() ?? '';
  // What the user just did here (an approval recorded, one withdrawn), said after the run is read again.
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const noticed = (text: string) => {
    setNotice(text);
    run.reload();
  };
  return (
    <>
      <nav aria-label="Breadcrumb" class="crumbs">
        <a href={href('projects')}>Projects</a> / <a href={href('projects', project)}>{project}</a> /{' '}
        {run.data && <a href={href('projects', project, 'workspaces', run.data.workspace)}>{run.data.workspace}</a>}
        {' / '}
        <span aria-current="page">run</span>
      </nav>
      <PageTitle>Run {runId}</PageTitle>
      <PageNotice text={notice} />
      <LoadedView loaded={run}>
        {(data) => (
          <>
            <dl class="facts">
              <dt>Type</dt>
              <dd>{data.type}</dd>
              <dt>Phase</dt>
              <dd>
                <span class={`phase phase-${data.phase.toLowerCase()}`} data-testid="run-phase">
                  {data.phase}
                </span>
                {!FINAL_PHASES.has(data.phase) && data.cancelRequestedAt && ' (cancel requested)'}
                <UnclaimedNotice run={data} />
              </dd>
              <dt>Principal</dt>
              <dd class="wrap">
                {data.principal} ({data.principalType})
              </dd>
              <dt>Created</dt>
              <dd>
                <TimeCell value={data.createdAt} />
              </dd>
              <dt>Started</dt>
              <dd>
                <TimeCell value={data.startedAt} />
              </dd>
              <dt>Finished</dt>
              <dd>
                <TimeCell value={data.finishedAt} />
              </dd>
              {data.logRemovedAt && (
                <>
                  <dt>Log removed</dt>
                  <dd>
                    <TimeCell value={data.logRemovedAt} />
                  </dd>
                </>
              )}
              <dt>Attempts</dt>
              <dd>{data.attempts}</dd>
              {data.message && (
                <>
                  <dt>Message</dt>
                  <dd class="wrap">{data.message}</dd>
                </>
              )}
              {data.planRun && (
                <>
                  <dt>Plan</dt>
                  <dd>
                    <a href={href('projects', project, 'runs', data.planRun)}>plan run {data.planRun}</a>
                  </dd>
                </>
              )}
              {data.override && (
                <>
                  <dt>Override</dt>
                  <dd class="wrap" data-testid="run-override">
                    {data.override.by} overrode {data.override.overrode}: {data.override.reason}
                  </dd>
                </>
              )}
              {data.statusMessage && (
                <>
                  <dt>Status</dt>
                  <dd class="wrap">{data.statusMessage}</dd>
                </>
              )}
            </dl>
            <div class="actions">
              {mayCancel && <CancelButton api={api} run={data} onDone={() => run.reload()} />}
              {mayApplyPlan(permissions, data) && <ApplyPlan api={api} run={data} onRecorded={noticed} />}
              {mayApplyPlan(permissions, data) && mayOverride(permissions, 'workspaces/runs', data.workspace) && (
                <OverridePlanApply api={api} run={data} onRecorded={noticed} />
              )}
              {mayReadAudit && <a href={`#/audit?run=${encodeURIComponent(data.id)}`}>Audit trail of this run</a>}
            </div>
            <PlanApprovals api={api} run={data} mayWithdraw={mayApplyPlan(permissions, data)} onWithdrawn={noticed} />
            <RunTaskResults api={api} run={data} permissions={permissions} onOverridden={() => run.reload()} />
          </>
        )}
      </LoadedView>
      <h2>Log</h2>
      <RunLogView
        streamUrl={`${api.baseUrl}/api/v1alpha1/run-logs/${encodeURIComponent(project)}/${encodeURIComponent(runId)}`}
        token={token}
        onUnauthorized={onUnauthorized}
      />
    </>
  );
}

/** Issue 44 item 3: a run that waits with no controller says so (re-rendered at each poll, so the time grows). */
function UnclaimedNotice({ run }: { run: Run }) {
  const notice = unclaimedNotice(run, Date.now());
  return notice ? (
    <span class="notice" role="status" data-testid="run-unclaimed">
      {' '}
      ({notice})
    </span>
  ) : null;
}
