import type { ClusterObjects } from '../../shared/domain/resources/cluster-objects.ts';
import { VARIABLE_SET, WORKSPACE } from '../../shared/contract/kinds/platform-kinds.ts';
import { isJsonObject, type PlatformObject } from '../../shared/contract/kinds/platform-object.ts';
import { sensitiveValuesSecretName } from '../../shared/domain/resources/variable-set-secret.ts';
import { checkAgainst } from '../../shared/contract/routes/path-parameters.ts';
import { apiError } from '../../shared/base/http/error-catalogue.ts';
import { variableSetNames } from '../../shared/domain/approvals/plan-binding.ts';

/** One variable as a run gets it: the value in clear, from the VariableSet or from its Secret. */
export interface ResolvedVariable {
  name: string;
  category: 'terraform' | 'env';
  hcl: boolean;
  /** True for variables marked sensitive and for every value read from a Secret: mask it in output. */
  sensitive: boolean;
  value: string;
  /** The VariableSet the value came from (the last one in the Workspace's order to define it). */
  variableSet: string;
}

interface Secret {
  data?: Record<string, string>;
}

/**
 * The variables of a Workspace's run: its `spec.variableSetRefs` in order, a later VariableSet
 * replacing a variable of the same name from an earlier one (the CRD keys variables by name); values given by
 * `valueFrom.secretKeyRef` are read from the VariableSet's own Secret (a reference to any other is refused). Sorted by
 * category, then name. The values are returned only here: never logged, never on a public route.
 */
export async function resolveRunVariables(
  objects: ClusterObjects,
  project: string,
  workspaceName: string,
): Promise<ResolvedVariable[]> {
  const workspace = await objects.find<PlatformObject>(
    objects.platformPath(WORKSPACE, { namespace: project, name: workspaceName }),
  );
  if (!workspace) throw apiError('WorkspaceNotFound', `workspace "${workspaceName}" not found in project "${project}"`);
  const secrets = new Map<string, Promise<Secret | undefined>>();
  const secretOf = (name: string) => {
    if (!secrets.has(name))
      secrets.set(name, objects.find<Secret>(objects.corePath('secrets', { namespace: project, name })));
    return secrets.get(name)!;
  };
  const merged = new Map<string, ResolvedVariable>();
  for (const setName of variableSetNames(workspace)) {
    // The name comes from the Workspace's spec: only a valid name may become a path segment.
    const invalid = checkAgainst(VARIABLE_SET.nameSchema, setName);
    const variableSet =
      invalid === undefined
        ? await objects.find<PlatformObject>(objects.platformPath(VARIABLE_SET, { namespace: project, name: setName }))
        : undefined;
    if (!variableSet)
      throw apiError(
        'VariableSetNotFound',
        `workspace "${workspaceName}" refers to VariableSet "${setName}", which does not exist in project "${project}"`,
      );
    const variables = Array.isArray(variableSet.spec?.variables) ? variableSet.spec.variables.filter(isJsonObject) : [];
    for (const variable of variables) {
      const resolved = await resolveVariable(variable, setName, secretOf);
      merged.set(resolved.name, resolved);
    }
  }
  return [...merged.values()].sort((a, b) => a.category.localeCompare(b.category) || a.name.localeCompare(b.name));
}

async function resolveVariable(
  variable: Record<string, unknown>,
  setName: string,
  secretOf: (name: string) => Promise<Secret | undefined>,
): Promise<ResolvedVariable> {
  const base = {
    name: String(variable.name),
    category: variable.category === 'env' ? ('env' as const) : ('terraform' as const),
    hcl: variable.hcl === true,
    variableSet: setName,
  };
  const reference =
    isJsonObject(variable.valueFrom) && isJsonObject(variable.valueFrom.secretKeyRef)
      ? variable.valueFrom.secretKeyRef
      : undefined;
  if (!reference)
    return {
      ...base,
      sensitive: variable.sensitive === true,
      value: typeof variable.value === 'string' ? variable.value : '',
    };
  const secretName = String(reference.name);
  const key = String(reference.key);
  // Only the VariableSet's own Secret, which the API server writes: any other Secret of the namespace
  // would be read with the server's rights on behalf of whoever may write VariableSets.
  if (secretName !== sensitiveValuesSecretName(setName)) {
    throw apiError(
      'VariableSecretNotAllowed',
      `variable "${base.name}" of VariableSet "${setName}" refers to Secret "${secretName}"; a VariableSet may refer only to its own Secret "${sensitiveValuesSecretName(setName)}"`,
    );
  }
  const encoded = (await secretOf(secretName))?.data?.[key];
  if (encoded === undefined) {
    throw apiError(
      'VariableSecretNotFound',
      `variable "${base.name}" of VariableSet "${setName}" refers to key "${key}" of Secret "${secretName}", which does not exist`,
    );
  }
  return { ...base, sensitive: true, value: Buffer.from(encoded, 'base64').toString('utf8') };
}
