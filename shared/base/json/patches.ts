// The PATCH bodies kube-apiserver accepts: JSON merge patch (RFC 7386) and JSON patch (RFC 6902), with its error
// wording. Used by the server, which judges a write on the object it would produce (the Kubernetes emulator has its own,
// infra/kube-emulator/objects/json-patch.ts, so that a bug here cannot hide in both).
// Every key is plain data: `__proto__`, `constructor` and `prototype` are read and written as own properties only,
// so a patch can neither follow nor change an object's prototype.
import { isDeepStrictEqual } from 'node:util';

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function hasMember(object: JsonObject, key: string): boolean {
  return Object.hasOwn(object, key);
}

// Assignment would run the `__proto__` setter; defining the property keeps the key as data.
function setMember(object: JsonObject, key: string, value: unknown): void {
  Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
}

/** Applies an RFC 7386 merge patch: objects merge recursively, `null` removes, anything else replaces. */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return structuredClone(patch);
  const result: JsonObject = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else setMember(result, key, applyMergePatch(hasMember(result, key) ? result[key] : undefined, value));
  }
  return result;
}

/** A JSON patch that cannot be applied; the server answers 422. */
export class JsonPatchError extends Error {}

interface Operation {
  op: string;
  path: string;
  from?: string;
  value?: unknown;
}

function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new JsonPatchError(`invalid JSON pointer "${pointer}"`);
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
}

function arrayIndex(container: unknown[], segment: string, forInsert: boolean): number {
  if (forInsert && segment === '-') return container.length;
  const index = Number(segment);
  const limit = forInsert ? container.length : container.length - 1;
  if (!/^\d+$/.test(segment) || index > limit) throw new JsonPatchError(`array index "${segment}" out of bounds`);
  return index;
}

/** The parent container and last segment of a pointer, failing when the parent is missing. */
function locate(document: unknown, pointer: string): { parent: unknown; key: string } {
  const segments = parsePointer(pointer);
  const key = segments.pop();
  if (key === undefined) throw new JsonPatchError('the root document cannot be the target of this operation');
  let parent = document;
  for (const segment of segments) {
    if (Array.isArray(parent)) parent = parent[arrayIndex(parent, segment, false)];
    else if (isObject(parent) && hasMember(parent, segment)) parent = parent[segment];
    else throw new JsonPatchError(`doc is missing path: "${pointer}"`);
  }
  return { parent, key };
}

function read(document: unknown, pointer: string): unknown {
  if (pointer === '') return document;
  const { parent, key } = locate(document, pointer);
  if (Array.isArray(parent)) return parent[arrayIndex(parent, key, false)];
  if (isObject(parent) && hasMember(parent, key)) return parent[key];
  throw new JsonPatchError(`doc is missing path: "${pointer}"`);
}

function remove(document: unknown, pointer: string): void {
  const { parent, key } = locate(document, pointer);
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, key, false), 1);
  else if (isObject(parent) && hasMember(parent, key)) delete parent[key];
  else throw new JsonPatchError(`unable to remove nonexistent key: ${key}: missing value`);
}

function add(document: unknown, pointer: string, value: unknown, replace: boolean): void {
  const { parent, key } = locate(document, pointer);
  if (Array.isArray(parent)) {
    const index = arrayIndex(parent, key, !replace);
    parent.splice(index, replace ? 1 : 0, value);
  } else if (isObject(parent)) {
    if (replace && !hasMember(parent, key))
      throw new JsonPatchError(`replace operation does not apply: doc is missing key: ${pointer}`);
    setMember(parent, key, value);
  } else {
    throw new JsonPatchError(`doc is missing path: "${pointer}"`);
  }
}

/** Applies an RFC 6902 JSON patch to a copy of the document. */
export function applyJsonPatch(document: unknown, operations: unknown): unknown {
  if (!Array.isArray(operations)) throw new JsonPatchError('a JSON patch must be an array of operations');
  let result = structuredClone(document);
  for (const operation of operations as unknown[]) {
    if (!isObject(operation) || typeof operation.path !== 'string')
      throw new JsonPatchError('each operation needs an "op" and a string "path"');
    const { op, path, from } = operation as unknown as Operation;
    if ((op === 'move' || op === 'copy') && typeof from !== 'string')
      throw new JsonPatchError(`operation "${op}" needs a string "from"`);
    const value = structuredClone(operation.value);
    switch (op) {
      case 'add':
        if (path === '') result = value;
        else add(result, path, value, false);
        break;
      case 'replace':
        if (path === '') result = value;
        else add(result, path, value, true);
        break;
      case 'remove':
        remove(result, path);
        break;
      case 'move': {
        const moved = read(result, from!);
        remove(result, from!);
        add(result, path, moved, false);
        break;
      }
      case 'copy':
        add(result, path, structuredClone(read(result, from!)), false);
        break;
      case 'test':
        if (!isDeepStrictEqual(read(result, path), value))
          throw new JsonPatchError(`testing value ${path} failed: test failed`);
        break;
      default:
        throw new JsonPatchError(`Unexpected kind: ${String(op)}`);
    }
  }
  return result;
}
