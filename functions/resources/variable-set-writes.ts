import type { ClusterObjects, ObjectLocation } from '../../shared/resources/cluster-objects.ts';
import { KubernetesStatusError } from '../../shared/resources/kubernetes-status.ts';
import { VARIABLE_SET } from '../../shared/resources/platform-kinds.ts';
import { isJsonObject, ownerReferenceTo, type PlatformObject } from '../../shared/resources/platform-object.ts';
import { plainWrites, type ResourceWrites, type WriteAnswer } from './resource-writes.ts';

interface Variable {
  name?: unknown;
  sensitive?: unknown;
  value?: unknown;
  valueFrom?: { secretKeyRef?: { name?: unknown; key?: unknown } };
  [field: string]: unknown;
}

interface Secret {
  metadata: { resourceVersion?: string };
  data?: Record<string, string>;
}

/** The Secret holding a VariableSet's sensitive values: `variableset-<name>`, in its namespace. */
export function sensitiveValuesSecretName(variableSetName: string): string {
  return `variableset-${variableSetName}`;
}

/**
 * VariableSets never store or return a sensitive value. A variable written with
 * `sensitive: true` and a `value` has the value moved into the Secret `variableset-<name>`
 * (owned by the VariableSet) and replaced by `valueFrom.secretKeyRef`; answers never carry a
 * sensitive variable's `value`. Keys no variable refers to any more are removed from the Secret.
 */
export function variableSetWrites(objects: ClusterObjects): ResourceWrites {
  const plain = plainWrites(objects, VARIABLE_SET);
  const secretPath = (namespace: string | undefined, name?: string) => objects.corePath('secrets', { namespace, name });

  /** Makes the Secret hold exactly the keys the stored VariableSet refers to, with `values` as the new ones. */
  const syncSecret = async (variableSet: PlatformObject, values: Record<string, string>): Promise<void> => {
    const { namespace, name } = variableSet.metadata;
    const secretName = sensitiveValuesSecretName(name!);
    const existing = await objects.find<Secret>(secretPath(namespace, secretName));
    const data: Record<string, string> = {};
    for (const key of referencedKeys(variableSet, secretName)) {
      const value = values[key] !== undefined ? Buffer.from(values[key]).toString('base64') : existing?.data?.[key];
      if (value !== undefined) data[key] = value;
    }
    if (Object.keys(data).length === 0) {
      if (existing) await objects.deleteIfPresent(secretPath(namespace, secretName));
      return;
    }
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'Opaque',
      metadata: {
        name: secretName,
        namespace,
        labels: { [`${objects.apiGroup}/variableset`]: name! },
        ownerReferences: [ownerReferenceTo(variableSet)],
        ...(existing ? { resourceVersion: existing.metadata.resourceVersion } : {}),
      },
      data,
    };
    if (existing) await objects.send({ method: 'PUT', path: secretPath(namespace, secretName), body: secret });
    else await objects.send({ method: 'POST', path: secretPath(namespace), body: secret });
  };

  const present = (object: PlatformObject): PlatformObject => {
    const variables = object.spec?.variables;
    if (!Array.isArray(variables)) return object;
    return { ...object, spec: { ...object.spec, variables: variables.map((variable: Variable) => (variable.sensitive === true ? withoutValue(variable) : variable)) } };
  };

  // The printer column "Variables" reads status.variableCount; nothing else keeps it current.
  const withCount = async (variableSet: PlatformObject): Promise<PlatformObject> => {
    const variables = variableSet.spec?.variables;
    const status = { variableCount: Array.isArray(variables) ? variables.length : 0, observedGeneration: variableSet.metadata.generation };
    const { namespace, name } = variableSet.metadata;
    const answer = await objects.send<PlatformObject>({ method: 'PATCH', path: objects.platformPath(VARIABLE_SET, { namespace, name, subresource: 'status' }), body: { status }, contentType: 'application/merge-patch+json' });
    return answer.body;
  };

  const written = async (answer: WriteAnswer, values: Record<string, string>): Promise<WriteAnswer> => {
    await syncSecret(answer.body, values);
    return { status: answer.status, body: present(await withCount(answer.body)) };
  };

  return {
    async create(location, object, options) {
      const { object: stored, values } = moveSensitiveValues(object, object.metadata.name ?? '');
      const answer = await plain.create(location, stored, options);
      try {
        return await written(answer, values);
      } catch (error) {
        // A VariableSet whose sensitive values were not kept is not what the caller asked for.
        await objects.deleteIfPresent(objects.platformPath(VARIABLE_SET, { namespace: location.namespace, name: answer.body.metadata.name })).catch(() => undefined);
        throw error;
      }
    },
    async replace(location, object, options) {
      const { object: stored, values } = moveSensitiveValues(object, location.name!);
      return written(await plain.replace(location, stored, options), values);
    },
    async patch(location, patch, contentType, options) {
      const { patch: stored, values } = patchWithoutSensitiveValues(patch, contentType, location);
      return written(await plain.patch(location, stored, contentType, options), values);
    },
    async apply(location, configuration, options) {
      const { object: stored, values } = moveSensitiveValues(configuration, location.name!);
      return written(await plain.apply(location, stored, options), values);
    },
    async delete(location, options, query) {
      const answer = await plain.delete(location, options, query);
      await objects.deleteIfPresent(secretPath(location.namespace, sensitiveValuesSecretName(location.name!)));
      return { status: answer.status, body: present(answer.body) };
    },
    present,
  };
}

function withoutValue(variable: Variable): Variable {
  const { value: _value, ...rest } = variable;
  return rest;
}

function referencedKeys(variableSet: PlatformObject, secretName: string): string[] {
  const variables = variableSet.spec?.variables;
  if (!Array.isArray(variables)) return [];
  return variables
    .map((variable: Variable) => variable.valueFrom?.secretKeyRef)
    .filter((reference) => reference?.name === secretName && typeof reference.key === 'string')
    .map((reference) => reference!.key as string);
}

/** Replaces each sensitive variable's `value` with a reference to the Secret; returns the values by key. */
function moveSensitiveValuesOfList(variables: unknown, variableSetName: string): { variables: unknown; values: Record<string, string> } {
  const values: Record<string, string> = {};
  if (!Array.isArray(variables)) return { variables, values };
  const secretName = sensitiveValuesSecretName(variableSetName);
  const rewritten = variables.map((variable: unknown) => {
    if (!isJsonObject(variable) || variable.sensitive !== true || variable.value === undefined) return variable;
    if (typeof variable.name !== 'string' || typeof variable.value !== 'string') {
      throw invalidVariable(variableSetName, 'a sensitive variable needs a string name and a string value');
    }
    values[variable.name] = variable.value;
    const { value: _value, valueFrom: _valueFrom, ...rest } = variable;
    return { ...rest, valueFrom: { secretKeyRef: { name: secretName, key: variable.name } } };
  });
  return { variables: rewritten, values };
}

function moveSensitiveValues(object: PlatformObject, variableSetName: string): { object: PlatformObject; values: Record<string, string> } {
  if (!object.spec) return { object, values: {} };
  const { variables, values } = moveSensitiveValuesOfList(object.spec.variables, variableSetName);
  return { object: { ...object, spec: { ...object.spec, variables } }, values };
}

/**
 * A merge patch replaces `spec.variables` as a whole, so its list is rewritten like a full object.
 * A JSON patch could write a value into any variable; only its `remove` operations may touch variables.
 */
function patchWithoutSensitiveValues(patch: unknown, contentType: string, location: ObjectLocation): { patch: unknown; values: Record<string, string> } {
  if (contentType === 'application/json-patch+json') {
    const touchesVariables = Array.isArray(patch) && patch.some((operation) => isJsonObject(operation) && operation.op !== 'remove' && typeof operation.path === 'string' && operation.path.startsWith('/spec/variables'));
    if (touchesVariables) throw invalidVariable(location.name!, 'change spec.variables with a merge patch or a replace (PUT), so sensitive values can be moved into the Secret');
    return { patch, values: {} };
  }
  if (!isJsonObject(patch) || !isJsonObject(patch.spec) || !Array.isArray(patch.spec.variables)) return { patch, values: {} };
  const { variables, values } = moveSensitiveValuesOfList(patch.spec.variables, location.name!);
  return { patch: { ...patch, spec: { ...patch.spec, variables } }, values };
}

function invalidVariable(name: string, detail: string): KubernetesStatusError {
  return new KubernetesStatusError(422, 'Invalid', `VariableSet "${name}" is invalid: spec.variables: ${detail}`, {
    name,
    kind: VARIABLE_SET.kind,
    causes: [{ reason: 'FieldValueInvalid', message: detail, field: 'spec.variables' }],
  });
}
