// The platform's four kinds as the console edits them: their REST paths under
// `/apis/<group>/v1alpha1` and their pages (issue 40, item 1).
import { href } from './router.ts';

export interface KindInfo {
  kind: 'Project' | 'Workspace' | 'Rollout' | 'VariableSet';
  plural: 'projects' | 'workspaces' | 'rollouts' | 'variablesets';
  /** Projects are cluster-scoped; the others live in a Project's namespace. */
  namespaced: boolean;
}

export const PROJECT: KindInfo = { kind: 'Project', plural: 'projects', namespaced: false };
export const WORKSPACE: KindInfo = { kind: 'Workspace', plural: 'workspaces', namespaced: true };
export const ROLLOUT: KindInfo = { kind: 'Rollout', plural: 'rollouts', namespaced: true };
export const VARIABLE_SET: KindInfo = { kind: 'VariableSet', plural: 'variablesets', namespaced: true };

export const KINDS: readonly KindInfo[] = [PROJECT, WORKSPACE, ROLLOUT, VARIABLE_SET];

export function kindOfPlural(plural: string): KindInfo | undefined {
  return KINDS.find((kind) => kind.plural === plural);
}

/** Where an object of the kind is (`name`), or its collection (no name); `project` is the namespace of a namespaced kind. */
export function objectPath(group: string, kind: KindInfo, project: string | undefined, name?: string): string {
  const where = kind.namespaced ? `/namespaces/${encodeURIComponent(project ?? '')}` : '';
  return `/apis/${group}/v1alpha1${where}/${kind.plural}${name !== undefined ? `/${encodeURIComponent(name)}` : ''}`;
}

/** The console page of an object: a Project's own page, or its page in the Project. */
export function objectHref(kind: KindInfo, project: string, name: string): string {
  return kind.namespaced ? href('projects', project, kind.plural, name) : href('projects', name);
}

/** How the console names an object to its user: `Workspace network`. */
export function objectTitle(kind: KindInfo, name: string): string {
  return `${kind.kind} ${name}`;
}
