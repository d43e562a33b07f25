// The run routes (docs/resources.md, "Runs") as the commands call them.
import type { RunAsRead } from '../../shared/contract/rules/run-record.ts';
import type { TaskResult } from '../../shared/contract/rules/run-task-result.ts';
import type { PlatformConnection } from './platform-connection.ts';

/** A run as the server answers it (the contract's one type, which the console reads too). */
export type RunRecord = RunAsRead;

const PAGE_LIMIT = 500;

const projectPath = (project: string) => `/api/v1alpha1/projects/${encodeURIComponent(project)}`;
export const runPath = (project: string, run: string) => `${projectPath(project)}/runs/${encodeURIComponent(run)}`;
export const workspaceRunsPath = (project: string, workspace: string) =>
  `${projectPath(project)}/workspaces/${encodeURIComponent(workspace)}/runs`;

export async function getRun(connection: PlatformConnection, project: string, run: string): Promise<RunRecord> {
  return (await connection.call('GET', runPath(project, run))).body as RunRecord;
}

/** The results of the run's tasks (issue 48), by stage and task. */
export async function getTaskResults(
  connection: PlatformConnection,
  project: string,
  run: string,
): Promise<TaskResult[]> {
  return ((await connection.call('GET', `${runPath(project, run)}/task-results`)).body as { items: TaskResult[] })
    .items;
}

/** The newest `limit` runs of the Project (or of one Workspace), newest first, following continue tokens. */
export async function listRuns(
  connection: PlatformConnection,
  project: string,
  options: { workspace?: string | undefined; limit: number },
): Promise<RunRecord[]> {
  const base = options.workspace ? workspaceRunsPath(project, options.workspace) : `${projectPath(project)}/runs`;
  const runs: RunRecord[] = [];
  let token: string | undefined;
  do {
    const query = new URLSearchParams({ limit: String(Math.min(PAGE_LIMIT, options.limit - runs.length)) });
    if (token) query.set('continue', token);
    const page = (await connection.call('GET', `${base}?${query}`)).body as { items: RunRecord[]; continue?: string };
    runs.push(...page.items);
    token = page.continue;
  } while (token && runs.length < options.limit);
  return runs;
}
