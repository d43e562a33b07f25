import { useState } from 'preact/hooks';
import type { Api } from '../api.ts';
import { apiGroup, type Run, runsPath } from '../platform-api.ts';
import { href } from '../router.ts';
import { useLoaded } from '../use-loaded.ts';
import { DataTable, LoadedView, PageTitle, TimeCell } from './common.tsx';
import { CancelButton, useMayRun } from './run-actions.tsx';

const POLL_MS = 2_000;

/** A Workspace's runs, live by polling; start a plan or apply run; cancel one. */
export function WorkspacePage({ api, project, workspace }: { api: Api; project: string; workspace: string }) {
  const base = `${runsPath(project)}/workspaces/${encodeURIComponent(workspace)}/runs`;
  const runs = useLoaded(() => api.get<{ items: Run[] }>(base), base, POLL_MS);
  const group = useLoaded(() => apiGroup(api), 'group');
  const mayRun = useMayRun(api, group.data, project, workspace);
  const [notice, setNotice] = useState<{ text: string; error: boolean } | undefined>(undefined);
  const start = async (type: 'plan' | 'apply') => {
    try {
      const run = await api.post<Run>(base, { type, message: `started from the console` });
      setNotice({ text: `Started ${type} run ${run.id}.`, error: false });
      runs.reload();
    } catch (error) {
      setNotice({ text: error instanceof Error ? error.message : String(error), error: true });
    }
  };
  const cancelled = (error?: string) => {
    setNotice(error ? { text: error, error: true } : { text: 'Cancel requested.', error: false });
    runs.reload();
  };
  return (
    <>
      <nav aria-label="Breadcrumb" class="crumbs">
        <a href={href('projects')}>Projects</a> / <a href={href('projects', project)}>{project}</a> /{' '}
        <span aria-current="page">{workspace}</span>
      </nav>
      <PageTitle>Workspace {workspace}</PageTitle>
      {mayRun && (
        <div class="actions">
          <button type="button" onClick={() => start('plan')}>
            Start plan
          </button>
          <button type="button" onClick={() => start('apply')}>
            Start apply
          </button>
        </div>
      )}
      <p role="status" class={notice?.error ? 'error' : 'notice'}>
        {notice?.text ?? ''}
      </p>
      <h2>Runs</h2>
      <LoadedView loaded={runs}>
        {(page) =>
          page.items.length === 0 ? (
            <p>No runs yet.</p>
          ) : (
            <DataTable
              class="runs"
              columns={['Run', 'Phase', 'Principal', 'Created', 'Started', 'Finished', 'Attempts', mayRun && 'Actions']}
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
                  <td>
                    <TimeCell value={run.createdAt} />
                  </td>
                  <td>
                    <TimeCell value={run.startedAt} />
                  </td>
                  <td>
                    <TimeCell value={run.finishedAt} />
                  </td>
                  <td>{run.attempts}</td>
                  {mayRun && (
                    <td>
                      <CancelButton api={api} run={run} onDone={cancelled} />
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
