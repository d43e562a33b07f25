import { apiError } from '../../../shared/base/http/error-catalogue.ts';
import type { ClusterObjects } from '../../../shared/domain/resources/cluster-objects.ts';
import type { ApiError } from '../../../shared/base/http/api-error.ts';
import { VARIABLE_SET } from '../../../shared/contract/kinds/platform-kinds.ts';
import { isJsonObject, ownerReferenceTo, type PlatformObject } from '../../../shared/contract/kinds/platform-object.ts';
import { sensitiveValuesSecretName } from '../../../shared/domain/resources/variable-set-secret.ts';
import { objectForWrite } from './resource-body.ts';
import { isDeleteDryRun, refuseOrphaning } from '../kubernetes/delete-options.ts';
import { JSON_PATCH, patchedObject, recomputedOnConflict, resultAsJsonPatch } from './patch-results.ts';
import {
  dryRunQuery,
  plainWrites,
  type ResourceWrites,
  type WriteAnswer,
  type WriteOptions,
} from './resource-writes.ts';

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

/**
 * VariableSets never store or return a sensitive value. A variable written with
 * `sensitive: true` and a `value` has the value moved into the Secret `variableset-<name>`
 * (owned by the VariableSet) and replaced by `valueFrom.secretKeyRef`; answers never carry a
 * sensitive variable's `value`. Keys no variable refers to any more are removed from the Secret.
 *
 * The rules are applied to the object a write produces, never to the shape of the request: a
 * patch is applied here to the stored object first, the result is judged (and refused when a
 * sensitive value it carries stands anywhere else in it), and what is sent to the cluster is
 * that result, pinned to the resourceVersion it was computed from. A dry run goes through the same
 * rules, and its Secret writes go to the cluster as dry runs: nothing changes.
 */
export function variableSetWrites(objects: ClusterObjects): ResourceWrites {
  const plain = plainWrites(objects, VARIABLE_SET);
  const secretPath = (namespace: string | undefined, name?: string) => objects.corePath('secrets', { namespace, name });

  /**
   * Makes the Secret hold exactly the keys the stored VariableSet refers to, with `values` as the new ones.
   * For a dry run each write is sent as one too: the cluster validates it and nothing changes.
   */
  const syncSecret = async (
    variableSet: PlatformObject,
    values: Record<string, string>,
    dryRun: boolean,
  ): Promise<void> => {
    const query = dryRunQuery(dryRun);
    const { namespace, name } = variableSet.metadata;
    const secretName = sensitiveValuesSecretName(name!);
    const existing = await objects.find<Secret>(secretPath(namespace, secretName));
    const data: Record<string, string> = {};
    for (const key of referencedKeys(variableSet, secretName)) {
      const value = values[key] !== undefined ? Buffer.from(values[key]).toString('base64') : existing?.data?.[key];
      if (value !== undefined) data[key] = value;
    }
    if (Object.keys(data).length === 0) {
      if (existing) await objects.deleteIfPresent(secretPath(namespace, secretName), query);
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
    if (existing) await objects.send({ method: 'PUT', path: secretPath(namespace, secretName), body: secret, query });
    else await objects.send({ method: 'POST', path: secretPath(namespace), body: secret, query });
  };

  const present = (object: PlatformObject): PlatformObject => {
    const variables = object.spec?.variables;
    if (!Array.isArray(variables)) return object;
    return {
      ...object,
      spec: {
        ...object.spec,
        variables: variables.map((variable: Variable) =>
          variable.sensitive === true ? withoutValue(variable) : variable,
        ),
      },
    };
  };

  // The printer column "Variables" reads status.variableCount; nothing else keeps it current.
  const withCount = async (variableSet: PlatformObject): Promise<PlatformObject> => {
    const variables = variableSet.spec?.variables;
    const status = {
      variableCount: Array.isArray(variables) ? variables.length : 0,
      observedGeneration: variableSet.metadata.generation,
    };
    const { namespace, name } = variableSet.metadata;
    const answer = await objects.send<PlatformObject>({
      method: 'PATCH',
      path: objects.platformPath(VARIABLE_SET, { namespace, name, subresource: 'status' }),
      body: { status },
      contentType: 'application/merge-patch+json',
    });
    return answer.body;
  };

  // A dry run's answer is the cluster's dry-run answer: the status it would get is not written.
  const written = async (
    answer: WriteAnswer,
    values: Record<string, string>,
    options: WriteOptions,
  ): Promise<WriteAnswer> => {
    const dryRun = options.has('dryRun');
    await syncSecret(answer.body, values, dryRun);
    return { ...answer, body: present(dryRun ? answer.body : await withCount(answer.body)) };
  };

  return {
    async create(location, object, options) {
      const { object: stored, values } = guardedObject(object, object.metadata.name ?? '');
      const answer = await plain.create(location, stored, options);
      try {
        return await written(answer, values, options);
      } catch (error) {
        // A VariableSet whose sensitive values were not kept is not what the caller asked for (a dry run created none).
        if (options.has('dryRun')) throw error;
        await objects
          .deleteIfPresent(
            objects.platformPath(VARIABLE_SET, { namespace: location.namespace, name: answer.body.metadata.name }),
          )
          .catch(() => undefined);
        throw error;
      }
    },
    async replace(location, object, options) {
      const { object: stored, values } = guardedObject(object, location.name!);
      return written(await plain.replace(location, stored, options), values, options);
    },
    patch(location, patch, contentType, options) {
      const read = async () =>
        (await objects.send<PlatformObject>({ method: 'GET', path: objects.platformPath(VARIABLE_SET, location) }))
          .body;
      return recomputedOnConflict(read, (current) => {
        // The patch sees the object as the caller does: a value someone stored in clear beside
        // `sensitive: true` (writing to the cluster directly) is moved out first, so no `test`
        // or `copy` can reach it; this write then keeps it in the Secret.
        const { object: visible, values: storedInClear } = moveSensitiveValues(current, location.name!);
        const result = objectForWrite(
          patchedObject(visible, patch, contentType, VARIABLE_SET, location.name!),
          VARIABLE_SET,
          objects.apiGroup,
          location,
        );
        const { object: stored, values } = guardedObject(result, location.name!);
        return {
          result: stored,
          send: async () =>
            written(
              await plain.patch(location, resultAsJsonPatch(current, stored), JSON_PATCH, options),
              { ...storedInClear, ...values },
              options,
            ),
        };
      });
    },
    async apply(location, configuration, options) {
      const { object: stored, values } = guardedObject(configuration, location.name!);
      return written(await plain.apply(location, stored, options), values, options);
    },
    async delete(location, options) {
      refuseOrphaning(options, VARIABLE_SET.plural, 'Secret');
      const answer = await plain.delete(location, options);
      await objects.deleteIfPresent(
        secretPath(location.namespace, sensitiveValuesSecretName(location.name!)),
        dryRunQuery(isDeleteDryRun(options)),
      );
      return { ...answer, body: present(answer.body) };
    },
    replaceStatus: plain.replaceStatus,
    patchStatus: plain.patchStatus,
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
function moveSensitiveValuesOfList(
  variables: unknown,
  variableSetName: string,
): { variables: unknown; values: Record<string, string> } {
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

function moveSensitiveValues(
  object: PlatformObject,
  variableSetName: string,
): { object: PlatformObject; values: Record<string, string> } {
  if (!object.spec) return { object, values: {} };
  const { variables, values } = moveSensitiveValuesOfList(object.spec.variables, variableSetName);
  return { object: { ...object, spec: { ...object.spec, variables } }, values };
}

/**
 * The object to store: sensitive values moved out, and refused when one of them also stands
 * anywhere else in the object (a description, an annotation, a plain variable, a key), however
 * it got there. Only values this write brings are compared: values already in the Secret are
 * never in the object, and comparing against them would let a caller guess them.
 */
function guardedObject(
  object: PlatformObject,
  variableSetName: string,
): { object: PlatformObject; values: Record<string, string> } {
  const moved = moveSensitiveValues(object, variableSetName);
  const secrets = new Set(Object.values(moved.values).filter((value) => value !== ''));
  const copy = secrets.size > 0 ? findString(moved.object, secrets) : undefined;
  if (copy !== undefined)
    throw invalidVariable(
      variableSetName,
      `a sensitive value may not appear anywhere else in the VariableSet (found at ${copy || 'the root'})`,
    );
  return moved;
}

/** The JSON-pointer-like path of the first string (value or key) in `values`, or undefined. */
function findString(value: unknown, values: Set<string>, path = ''): string | undefined {
  if (typeof value === 'string') return values.has(value) ? path : undefined;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = findString(item, values, `${path}/${index}`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (!isJsonObject(value)) return undefined;
  for (const [key, item] of Object.entries(value)) {
    if (values.has(key)) return `${path}/${key}`;
    const found = findString(item, values, `${path}/${key}`);
    if (found !== undefined) return found;
  }
  return undefined;
}

function invalidVariable(name: string, detail: string): ApiError {
  return apiError(
    'Invalid',
    `VariableSet "${name}" is invalid: spec.variables: ${detail}`,
    {},
    {
      name,
      kind: VARIABLE_SET.kind,
      causes: [{ reason: 'FieldValueInvalid', message: detail, field: 'spec.variables' }],
    },
  );
}
