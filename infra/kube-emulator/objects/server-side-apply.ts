// Server-side apply (`application/apply-patch+yaml`) of custom resources: each field manager owns the fields of its
// last applied configuration, recorded in `metadata.managedFields` (FieldsV1). Applying a different value to a field
// another manager owns is a 409 Conflict unless `force` takes the field over; fields a manager stops applying are
// removed when nobody else owns them. Lists are atomic, as the platform's CRDs declare them. Only Apply operations
// are tracked: fields written by create, update and patch belong to nobody here.
import { isDeepStrictEqual } from 'node:util';
import { parse as parseYaml } from 'yaml';
import { kubeTimestamp, type KubeObject } from './kube-object.ts';
import { KubeStatusError, badRequest } from '../http/status.ts';

interface ManagedFieldsEntry {
  manager: string;
  operation: string;
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: Record<string, unknown>;
  subresource?: string;
}

type FieldPath = string[];

// Identity and server-set metadata are not owned: they name the object, they are not configuration.
const OWNED_METADATA = new Set(['labels', 'annotations', 'finalizers']);

/** The apply configuration of a request body (YAML or JSON); 400 when it is not an object. */
export function parseApplyConfiguration(body: string): KubeObject {
  let parsed: unknown;
  try {
    parsed = parseYaml(body);
  } catch (error) {
    throw badRequest(`error decoding YAML: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw badRequest('the apply configuration must be an object');
  const object = parsed as KubeObject;
  if (typeof object.metadata !== 'object' || object.metadata === null) object.metadata = {};
  return object;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The leaf fields an apply configuration sets (objects recurse; scalars and lists are leaves). */
function appliedFields(configuration: KubeObject): FieldPath[] {
  const paths: FieldPath[] = [];
  const walk = (value: unknown, path: FieldPath): void => {
    if (isObject(value) && Object.keys(value).length > 0) {
      for (const [key, child] of Object.entries(value)) walk(child, [...path, key]);
    } else {
      paths.push(path);
    }
  };
  for (const [key, value] of Object.entries(configuration)) {
    if (key === 'apiVersion' || key === 'kind') continue;
    if (key !== 'metadata') walk(value, [key]);
    else if (isObject(value))
      for (const field of Object.keys(value).filter((name) => OWNED_METADATA.has(name)))
        walk(value[field], ['metadata', field]);
  }
  return paths;
}

function toFieldsV1(paths: FieldPath[]): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const path of paths) {
    let node = root;
    for (const segment of path) node = (node[`f:${segment}`] ??= {}) as Record<string, unknown>;
  }
  return root;
}

function fromFieldsV1(fields: unknown, prefix: FieldPath = []): FieldPath[] {
  if (!isObject(fields)) return [];
  const children = Object.keys(fields).filter((key) => key.startsWith('f:'));
  if (children.length === 0) return prefix.length > 0 ? [prefix] : [];
  return children.flatMap((key) => fromFieldsV1(fields[key], [...prefix, key.slice(2)]));
}

const key = (path: FieldPath): string => JSON.stringify(path);
const dotted = (path: FieldPath): string => `.${path.join('.')}`;

function valueAt(object: unknown, path: FieldPath): unknown {
  let node = object;
  for (const segment of path) node = isObject(node) ? node[segment] : undefined;
  return node;
}

function removeAt(object: Record<string, unknown>, path: FieldPath): void {
  const parents: Record<string, unknown>[] = [];
  let node: unknown = object;
  for (const segment of path.slice(0, -1)) {
    if (!isObject(node)) return;
    parents.push(node);
    node = node[segment];
  }
  if (!isObject(node)) return;
  delete node[path.at(-1)!];
  // Objects the removal left empty go too, as the real server's field removal does.
  for (let depth = path.length - 2; depth >= 0; depth--) {
    const parent = parents[depth]!;
    const child = parent[path[depth]!];
    if (isObject(child) && Object.keys(child).length === 0 && depth > 0) delete parent[path[depth]!];
    else break;
  }
}

function mergeInto(target: Record<string, unknown>, source: Record<string, unknown>): void {
  for (const [field, value] of Object.entries(source)) {
    const existing = target[field];
    if (isObject(value) && isObject(existing)) mergeInto(existing, value);
    else target[field] = structuredClone(value);
  }
}

export interface ApplyRequest {
  manager: string;
  force: boolean;
  apiVersion: string;
}

/**
 * The object after `manager` applies `configuration` to `current` (undefined: the object is created), with its
 * managedFields updated; throws 409 Conflict naming each field another manager owns with a different value.
 */
export function applyConfiguration(
  current: KubeObject | undefined,
  configuration: KubeObject,
  request: ApplyRequest,
  describe: { group: string; kind: string; name: string },
): KubeObject {
  const entries = ((current?.metadata.managedFields as ManagedFieldsEntry[] | undefined) ?? []).filter(
    (entry) => entry.operation === 'Apply',
  );
  const applied = appliedFields(configuration);
  const appliedKeys = new Set(applied.map(key));
  const others = entries
    .filter((entry) => entry.manager !== request.manager)
    .map((entry) => ({ entry, paths: fromFieldsV1(entry.fieldsV1) }));
  const conflicts = others.flatMap(({ entry, paths }) =>
    paths
      .filter(
        (path) =>
          appliedKeys.has(key(path)) && !isDeepStrictEqual(valueAt(current, path), valueAt(configuration, path)),
      )
      .map((path) => ({ manager: entry.manager, path })),
  );
  if (conflicts.length > 0 && !request.force) {
    const lines = conflicts.map(({ manager, path }) => `conflict with "${manager}": ${dotted(path)}`);
    const message =
      conflicts.length === 1
        ? `Apply failed with 1 conflict: ${lines[0]}`
        : `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
    throw new KubeStatusError(409, 'Conflict', message, {
      name: describe.name,
      group: describe.group,
      kind: describe.kind,
      causes: conflicts.map(({ manager, path }) => ({
        reason: 'FieldManagerConflict',
        message: `conflict with "${manager}"`,
        field: dotted(path),
      })),
    });
  }
  const taken = new Set(conflicts.map(({ path }) => key(path)));
  const remaining = others.map(({ entry, paths }) => ({ entry, paths: paths.filter((path) => !taken.has(key(path))) }));
  const ownedByOthers = new Set(remaining.flatMap(({ paths }) => paths.map(key)));
  const previous = fromFieldsV1(entries.find((entry) => entry.manager === request.manager)?.fieldsV1);
  const result = structuredClone(
    current ?? { apiVersion: configuration.apiVersion, kind: configuration.kind, metadata: {} },
  ) as KubeObject;
  for (const path of previous) if (!appliedKeys.has(key(path)) && !ownedByOthers.has(key(path))) removeAt(result, path);
  const { metadata, apiVersion: _apiVersion, kind: _kind, ...rest } = configuration;
  mergeInto(result, rest);
  for (const field of ['name', 'namespace', 'resourceVersion', ...OWNED_METADATA])
    if (metadata[field] !== undefined) mergeInto(result.metadata, { [field]: metadata[field] });
  const time = kubeTimestamp();
  result.metadata.managedFields = [
    ...remaining
      .filter(({ paths }) => paths.length > 0)
      .map(({ entry, paths }) => ({ ...entry, fieldsV1: toFieldsV1(paths) })),
    {
      manager: request.manager,
      operation: 'Apply',
      apiVersion: request.apiVersion,
      time,
      fieldsType: 'FieldsV1',
      fieldsV1: toFieldsV1(applied),
    },
  ];
  return result;
}
