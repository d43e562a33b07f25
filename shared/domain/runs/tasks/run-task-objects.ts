import { RUN_TASK, WORKSPACE } from '../../../contract/kinds/platform-kinds.ts';
import type { PlatformObject } from '../../../contract/kinds/platform-object.ts';
import type { ClusterObjects } from '../../resources/cluster-objects.ts';
import type { Run } from '../run.ts';
import type { RunTaskEnforcement, RunTaskStage, TaskAtStage, TasksToAwait } from './run-task-protocol.ts';

/** A RunTask as its CRD (infra/chart/files/crds/runtasks.yaml) declares it. */
export interface RunTaskObject extends PlatformObject {
  spec: {
    url: string;
    hmacKeySecretRef?: { name: string; key: string };
    stages: RunTaskStage[];
    enforcement?: RunTaskEnforcement;
    workspaces?: string[];
    workspaceSelector?: { matchLabels?: Record<string, string> };
  };
}

/** The label a Secret needs before a RunTask may sign with it: `<group>/run-task-secret: "true"`. */
export const runTaskSecretLabel = (apiGroup: string) => `${apiGroup}/run-task-secret`;

/** Whether `task` applies to runs of `workspace` (by name, then by labels); both absent: every Workspace. */
export function appliesTo(task: RunTaskObject, workspace: PlatformObject): boolean {
  const names = task.spec.workspaces ?? [];
  if (names.length > 0 && !names.includes(workspace.metadata.name ?? '')) return false;
  const labels = workspace.metadata.labels ?? {};
  return Object.entries(task.spec.workspaceSelector?.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
}

/**
 * The RunTasks of `project` a run of `workspace` waits for at `stage`, read with the server's ServiceAccount
 * when the run is recorded (so one created later does not hold back a run already waiting), by name.
 */
export async function tasksToAwait(
  objects: ClusterObjects,
  project: string,
  workspace: PlatformObject,
  stage: RunTaskStage,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<TasksToAwait> {
  const list = await objects.find<{ items: RunTaskObject[] }>(
    objects.platformPath(RUN_TASK, { namespace: project }),
    signal,
  );
  const tasks: TaskAtStage[] = (list?.items ?? [])
    .filter((task) => task.spec.stages.includes(stage) && appliesTo(task, workspace))
    .map((task) => ({ name: task.metadata.name!, enforcement: task.spec.enforcement ?? 'advisory' }))
    .sort((a, b) => a.name.localeCompare(b.name));
  return { stage, tasks, timeoutMs };
}

/**
 * The RunTasks a plan run of `run.workspace` is checked by once it has succeeded (post_plan, issue 48), read when the
 * controller reports the success; undefined when there are none, or the Workspace is gone (its plan can never be
 * approved for apply, so there is nothing to check).
 */
export async function postPlanTasksOf(
  objects: ClusterObjects,
  run: Pick<Run, 'project' | 'workspace'>,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<TasksToAwait | undefined> {
  const workspace = await objects.find<PlatformObject>(
    objects.platformPath(WORKSPACE, { namespace: run.project, name: run.workspace }),
    signal,
  );
  if (!workspace) return undefined;
  const tasks = await tasksToAwait(objects, run.project, workspace, 'post_plan', timeoutMs, signal);
  return tasks.tasks.length > 0 ? tasks : undefined;
}
