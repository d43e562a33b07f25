// The API's shapes the console reads, and where they live.
import {
  FINAL_PHASES as FINAL_RUN_PHASES,
  type RunAsRead as Run,
} from '../../../../shared/contract/rules/run-record.ts';
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

/** A run as the run routes answer it: the contract's one type, which the server and the plugin use too. */
export type { RunAsRead as Run } from '../../../../shared/contract/rules/run-record.ts';

export const FINAL_PHASES: ReadonlySet<Run['phase']> = new Set(FINAL_RUN_PHASES);

/** One run task's result (issue 48, `GET .../runs/{run}/task-results`): the server's declaration. */
export type { TaskResult } from '../../../../shared/contract/rules/run-task-result.ts';

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
