// The API's shapes the console reads, and where they live.
import type { Api } from './api.ts';

export interface ObjectMeta {
  name: string;
  namespace?: string;
  creationTimestamp?: string;
  resourceVersion?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
export interface KubeObject<Spec = Record<string, unknown>> {
  metadata: ObjectMeta;
  spec?: Spec;
  status?: Record<string, unknown>;
}
export interface KubeList<Spec = Record<string, unknown>> {
  items: KubeObject<Spec>[];
}

export interface Variable {
  name: string;
  description?: string;
  sensitive?: boolean;
  category?: string;
  value?: string;
  valueFrom?: { secretKeyRef: { name: string; key: string } };
}

export interface Run {
  id: string;
  project: string;
  workspace: string;
  type: 'plan' | 'apply';
  /** `AwaitingTasks`: waiting for its run tasks (issue 48) before a controller may claim it. */
  phase: 'AwaitingTasks' | 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Cancelled';
  principal: string;
  principalType: string;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  /** When the run's log was removed after RUN_LOG_RETENTION; null while it is kept. */
  logRemovedAt: string | null;
  message: string;
  statusMessage: string;
  attempts: number;
  cancelRequestedAt: string | null;
  /** The plan run an apply run applies as reviewed (the approvals contract); null for other runs, absent from older servers. */
  planRun?: string | null;
  /**
   * For a succeeded plan run, whether it may still be approved for apply, as the server decides it
   * (issue 44, item 15: stale-plan.ts); null for other runs, absent from older servers.
   */
  planApproval?: {
    applyable: boolean;
    /** When it finished plus PLAN_APPROVAL_MAX_AGE. */
    applyableUntil: string;
    supersededBy: { id: string; type: 'plan' | 'apply' } | null;
  } | null;
}

/** One run task's result (issue 48, `GET .../runs/{run}/task-results`). */
export interface TaskResult {
  id: string;
  task: string;
  stage: 'pre_plan' | 'pre_apply';
  enforcement: 'advisory' | 'mandatory';
  status: 'pending' | 'running' | 'passed' | 'failed' | 'errored';
  message: string;
  url: string | null;
  outcomes: Array<{ outcomeId: string; description: string; body?: string; url?: string }>;
  deadline: string;
  updatedAt: string;
  overriddenBy: string | null;
  overrideReason: string | null;
}

export const FINAL_PHASES: ReadonlySet<Run['phase']> = new Set(['Succeeded', 'Failed', 'Cancelled']);

let platformGroup: Promise<string> | undefined;

/** The platform's API group (configurable on the server): the one group of `/apis` that is not Kubernetes' own. */
export function apiGroup(api: Api): Promise<string> {
  platformGroup ??= api.get<{ groups: { name: string }[] }>('/apis').then((list) => {
    const group = list.groups.find((candidate) => !candidate.name.endsWith('.k8s.io'));
    if (!group) throw new Error('the API serves no platform group under /apis');
    return group.name;
  });
  platformGroup.catch(() => (platformGroup = undefined));
  return platformGroup;
}

/** A namespaced list of the platform's kinds; a Project's namespace has its name. */
export async function listKind<Spec>(api: Api, plural: string, namespace?: string): Promise<KubeList<Spec>> {
  const group = await apiGroup(api);
  const where = namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  return api.get<KubeList<Spec>>(`/apis/${group}/v1alpha1${where}/${plural}`);
}

export const runsPath = (project: string) => `/api/v1alpha1/projects/${encodeURIComponent(project)}`;
