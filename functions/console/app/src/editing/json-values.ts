// The console's JSON objects (what the API answers and what an editor drafts), read and written by
// field path, and compared as merge patches (RFC 7386), the patch type the console's edits are sent as.
export type JsonObject = { [key: string]: unknown };

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Sets an own property: assignment would run the `__proto__` setter, and a key is only ever data here. */
function setMember(object: JsonObject, key: string, value: unknown): void {
  Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
}

/** A field path as a `Status` cause names it: `spec.source.repository`, `spec.variables[2].name`. */
export type FieldPath = string;

export function pathSegments(path: FieldPath): Array<string | number> {
  const segments: Array<string | number> = [];
  for (const part of path.split('.')) {
    const [name, ...indexes] = part.split('[');
    if (name) segments.push(name);
    for (const index of indexes) segments.push(Number(index.replace(']', '')));
  }
  return segments;
}

export function getIn(value: unknown, path: FieldPath): unknown {
  let current = value;
  for (const segment of pathSegments(path)) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string | number, unknown>)[segment];
  }
  return current;
}

/**
 * A copy of `value` with the field at `path` set; `undefined` or `''` removes it, and an object left
 * empty by that goes too (a cleared `credentialsSecretRef.name` leaves no `credentialsSecretRef: {}`).
 */
export function setIn<T>(value: T, path: FieldPath, field: unknown): T {
  const write = (container: unknown, segments: Array<string | number>): unknown => {
    const [head, ...rest] = segments;
    if (head === undefined) return field;
    if (typeof head === 'number') {
      const items = Array.isArray(container) ? [...container] : [];
      items[head] = write(items[head], rest);
      return items;
    }
    const object: JsonObject = isJsonObject(container) ? { ...container } : {};
    const next = write(object[head], rest);
    if (next === undefined || next === '' || (isJsonObject(next) && Object.keys(next).length === 0))
      delete object[head];
    else setMember(object, head, next);
    return object;
  };
  return write(value, pathSegments(path)) as T;
}

/** The RFC 7386 merge patch that turns `from` into `to`: changed fields, `null` for removed ones, arrays whole. */
export function mergePatch(from: unknown, to: unknown): unknown {
  if (!isJsonObject(from) || !isJsonObject(to)) return to;
  const patch: JsonObject = {};
  for (const key of Object.keys(from)) if (!Object.hasOwn(to, key)) setMember(patch, key, null);
  for (const [key, value] of Object.entries(to)) {
    const before = Object.hasOwn(from, key);
    if (before && sameJson(from[key], value)) continue;
    setMember(patch, key, before ? mergePatch(from[key], value) : value);
  }
  return patch;
}

/** Applies an RFC 7386 merge patch: objects merge, `null` removes, anything else replaces. */
export function applyPatch(target: unknown, patch: unknown): unknown {
  if (!isJsonObject(patch)) return patch;
  const result: JsonObject = isJsonObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else setMember(result, key, applyPatch(Object.hasOwn(result, key) ? result[key] : undefined, value));
  }
  return result;
}

export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => sameJson(item, b[i]));
  if (!isJsonObject(a) || !isJsonObject(b)) return false;
  const keys = Object.keys(a);
  return (
    keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && sameJson(a[key], b[key]))
  );
}
