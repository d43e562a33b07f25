import type { ClusterObjects } from '../resources/cluster-objects.ts';
import { VARIABLE_SET, WORKSPACE } from '../../contract/kinds/platform-kinds.ts';
import { DNS_SUBDOMAIN } from '../../contract/kinds/object-names.ts';
import { isJsonObject, type PlatformObject } from '../../contract/kinds/platform-object.ts';
import { sensitiveValuesSecretName } from '../resources/variable-set-secret.ts';

// A plan is applied only to the Workspace object and spec it was planned for (issue 45, item 1; docs/resources.md
// "Approvals"): a plan run records what it was planned against, and approving it for apply compares that with
// the Workspace as it is then.

/** One VariableSet a plan's Workspace referred to, as it was: absent ones have no uid. */
export interface BoundVariableSet {
  name: string;
  uid: string | null;
  resourceVersion: string | null;
  /** Its sensitive values' Secret (`variableset-<name>`), which a value change writes without the VariableSet. */
  secretResourceVersion: string | null;
}

/** What a plan run was planned against: the Workspace object (uid), its spec (generation) and its VariableSets. */
export interface PlanBinding {
  workspace: { uid: string; generation: number };
  variableSets: BoundVariableSet[];
}

const OBJECT_NAME = new RegExp(DNS_SUBDOMAIN.pattern);

/** The binding of a plan of `workspace` (as read now) in `namespace`: its VariableSets are read too. */
export async function planBindingOf(
  objects: ClusterObjects,
  namespace: string,
  workspace: PlatformObject,
  signal?: AbortSignal,
): Promise<PlanBinding> {
  const variableSets: BoundVariableSet[] = [];
  for (const name of variableSetNames(workspace)) {
    // A reference that is no object name names nothing the cluster can hold: bound as absent, never sent.
    if (!OBJECT_NAME.test(name) || name.length > DNS_SUBDOMAIN.maxLength) {
      variableSets.push({ name, uid: null, resourceVersion: null, secretResourceVersion: null });
      continue;
    }
    const [set, secret] = await Promise.all([
      objects.find<PlatformObject>(objects.platformPath(VARIABLE_SET, { namespace, name }), signal),
      objects.find<PlatformObject>(
        objects.corePath('secrets', { namespace, name: sensitiveValuesSecretName(name) }),
        signal,
      ),
    ]);
    variableSets.push({
      name,
      uid: set?.metadata.uid ?? null,
      resourceVersion: set?.metadata.resourceVersion ?? null,
      secretResourceVersion: secret?.metadata.resourceVersion ?? null,
    });
  }
  return {
    workspace: { uid: workspace.metadata.uid ?? '', generation: workspace.metadata.generation ?? 0 },
    variableSets,
  };
}

/**
 * What changed between the binding a plan recorded and the Workspace as it is now, in words for the 409;
 * undefined when nothing did. A plan that recorded none (started before bindings were recorded) changed.
 */
export function planBindingChange(planned: PlanBinding | null, current: PlanBinding): string | undefined {
  if (planned === null) return 'the plan records no Workspace it was planned for (it is older than that record)';
  if (planned.workspace.uid !== current.workspace.uid)
    return `the ${WORKSPACE.kind} was deleted and re-created since the plan`;
  if (planned.workspace.generation !== current.workspace.generation)
    return `the ${WORKSPACE.kind}'s spec changed since the plan (generation ${planned.workspace.generation}, now ${current.workspace.generation})`;
  for (const set of current.variableSets) {
    const before = planned.variableSets.find((candidate) => candidate.name === set.name);
    if (
      before?.uid !== set.uid ||
      before.resourceVersion !== set.resourceVersion ||
      before.secretResourceVersion !== set.secretResourceVersion
    )
      return `${VARIABLE_SET.kind} "${set.name}" changed since the plan`;
  }
  return undefined;
}

/** The names of the VariableSets a Workspace refers to (`spec.variableSetRefs`), in order. */
export function variableSetNames(workspace: PlatformObject): string[] {
  const refs = workspace.spec?.variableSetRefs;
  return Array.isArray(refs)
    ? refs
        .filter(isJsonObject)
        .map((ref) => ref.name)
        .filter((name): name is string => typeof name === 'string')
    : [];
}
