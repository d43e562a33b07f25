import { useState } from 'preact/hooks';
import { useProjectPermissions } from '../access.ts';
import { type Api, errorText } from '../api.ts';
import { WORKSPACE } from '../kinds.ts';
import { type KubeObject, type Run, runsPath } from '../platform-api.ts';
import { href } from '../router.ts';
import { useLoaded } from '../use-loaded.ts';
import { useObject } from '../use-object.ts';
import { ApplyPlan } from './approvals.tsx';
import { Breadcrumbs, DataTable, Facts, LoadedView, PageNotice, PageTitle, TimeCell } from './common.tsx';
import { ObjectActions } from './object-actions.tsx';
import { CancelButton, mayApplyPlan, mayRun } from './run-actions.tsx';

const POLL_MS = 2_000;
/** The run routes' bound on a run's message (shared/contract/routes/run-routes.ts, MESSAGE). */
const RUN_MESSAGE_MAX_LENGTH = 4096;

export interface WorkspaceSpec {
  description?: string;
  source?: { repository?: string; ref?: string; path?: string; credentialsSecretRef?: { name?: string } };
  tool?: { name?: string; version?: string };
  variableSetRefs?: { name: string }[];
  autoApply?: boolean;
  suspend?: boolean;
  allowApplyWithoutPlan?: boolean;
}

/**
 * A Workspace: its fields (Edit, Delete), its runs live by polling; start a plan run (an apply run too where
 * the Workspace allows one without a plan); cancel one; apply a succeeded plan.
 */
export function WorkspacePage({ api, project, workspace }: { api: Api; project: string; workspace: string }) {
  const base = `${runsPath(project)}/workspaces/${encodeURIComponent(workspace)}/runs`;
  const runs = useLoaded(() => api.get<{ items: Run[] }>(base), base, POLL_MS);
  const object = useObject<KubeObject<WorkspaceSpec>>(api, WORKSPACE, project, workspace);
  const permissions = useProjectPermissions(api, project);
  const mayStart = mayRun(permissions, workspace);
  const [notice, setNotice] = useState<{ text: string; error: boolean } | undefined>(undefined);
  /** Why the run is started (issue 44, item 15), recorded with it; a stock message when left empty. */
  const [message, setMessage] = useState('');
  const start = async (type: 'plan' | 'apply') => {
    try {
      const run = await api.post<Run>(base, { type, message: message.trim() || 'started from the console' });
      setMessage('');
      setNotice({ text: `Started ${type} run ${run.id}.`, error: false });
      runs.reload();
    } catch (error) {
      setNotice({ text: errorText(error), error: true });
    }
  };
  const cancelled = (error?: string) => {
    setNotice(error ? { text: error, error: true } : { text: 'Cancel requested.', error: false });
    runs.reload();
  };
  const planApplier = (run: Run) => mayApplyPlan(permissions, run);
  return (
    <>
      <Breadcrumbs project={project} current={workspace} />
      <PageTitle>Workspace {workspace}</PageTitle>
      <PageNotice text={notice?.text} error={notice?.error} />
      <LoadedView loaded={object}>
        {({ group, object: found }) => (
          <>
            <WorkspaceFacts spec={found.spec ?? {}} project={project} />
            <ObjectActions api={api} group={group} kind={WORKSPACE} object={found} permissions={permissions} />
          </>
        )}
      </LoadedView>
      {mayStart && (
        <div class="actions">
          <label class="run-message">
            Message (optional)
            <input
              type="text"
              maxLength={RUN_MESSAGE_MAX_LENGTH}
              value={message}
              onInput={(event) => setMessage(event.currentTarget.value)}
            />
          </label>
          <button type="button" onClick={() => start('plan')}>
            Start plan
          </button>
          {/* Otherwise an apply comes only from a reviewed plan ("Apply plan"); the server answers 409 ApplyNeedsPlan. */}
          {object.data?.object.spec?.allowApplyWithoutPlan === true && (
            <button type="button" onClick={() => start('apply')}>
              Start apply
            </button>
          )}
        </div>
      )}
      <h2>Runs</h2>
      <LoadedView loaded={runs}>
        {(page) =>
          page.items.length === 0 ? (
            <p>No runs yet.</p>
          ) : (
            <DataTable
              class="runs"
              columns={[
                'Run',
                'Phase',
                'Principal',
                'Created',
                'Started',
                'Finished',
                'Attempts',
                (mayStart || page.items.some(planApplier)) && 'Actions',
              ]}
            >
              {page.items.map((run) => (
                <tr key={run.id} data-run={run.id}>
                  <td>
                    <a href={href('projects', project, 'runs', run.id)}>
                      {run.type} {run.id.slice(-8)}
                    </a>
                  </td>
                  <td>
                    <span class={`phase phase-${run.phase.toLowerCase()}`}>{run.phase}</span>
                    {run.cancelRequestedAt && run.phase === 'Running' && ' (cancelling)'}
                  </td>
                  <td class="wrap">{run.principal}</td>
                  <td class="breakable">
                    <TimeCell value={run.createdAt} />
                  </td>
                  <td class="breakable">
                    <TimeCell value={run.startedAt} />
                  </td>
                  <td class="breakable">
                    <TimeCell value={run.finishedAt} />
                  </td>
                  <td>{run.attempts}</td>
                  {(mayStart || page.items.some(planApplier)) && (
                    <td class="breakable">
                      {mayStart && <CancelButton api={api} run={run} onDone={cancelled} />}
                      {planApplier(run) && <ApplyPlan api={api} run={run} />}
                    </td>
                  )}
                </tr>
              ))}
            </DataTable>
          )
        }
      </LoadedView>
    </>
  );
}

function WorkspaceFacts({ spec, project }: { spec: WorkspaceSpec; project: string }) {
  const flags = [
    spec.autoApply && 'auto-apply',
    spec.suspend && 'suspended',
    spec.allowApplyWithoutPlan && 'apply without a plan allowed',
  ]
    .filter(Boolean)
    .join(', ');
  return (
    <Facts
      facts={[
        ['Description', spec.description],
        ['Repository', spec.source?.repository],
        ['Ref', spec.source?.ref],
        ['Path', spec.source?.path],
        ['Tool', [spec.tool?.name, spec.tool?.version].filter(Boolean).join(' ')],
        [
          'VariableSets',
          spec.variableSetRefs?.length
            ? spec.variableSetRefs.map((reference, index) => (
                <span key={reference.name}>
                  {index > 0 && ', '}
                  <a href={href('projects', project, 'variablesets', reference.name)}>{reference.name}</a>
                </span>
              ))
            : undefined,
        ],
        ['Settings', flags],
      ]}
    />
  );
}
