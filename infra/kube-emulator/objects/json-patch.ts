// The emulator's own PATCH bodies, written after kube-apiserver's libraries rather than shared with the
// API server: JSON patch (RFC 6902) as github.com/evanphx/json-patch applies it, with its error texts,
// and JSON merge patch (RFC 7386). The stand-in must not share the code it tests: a bug in the server's
// patching would otherwise be the emulator's too, and no test could see it.
//
// Documents are plain JSON (parsed by JSON.parse): member names are read and written as own properties
// only, so `__proto__` is a member like any other.

/** A patch that does not apply: the emulator answers 422 `Invalid` with the message, as kube-apiserver does. */
export class PatchApplyError extends Error {}

type Node = Record<string, unknown> | unknown[];

const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null;
const isMap = (value: unknown): value is Record<string, unknown> => isNode(value) && !Array.isArray(value);
const own = (map: Record<string, unknown>, key: string) => Object.hasOwn(map, key);
const put = (map: Record<string, unknown>, key: string, value: unknown) =>
  Object.defineProperty(map, key, { value, enumerable: true, writable: true, configurable: true });
const copyOf = <T>(value: T): T => (value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T));

/** RFC 7386: members of an object patch merge recursively; `null` deletes; any other patch replaces. */
export function mergePatch(original: unknown, patch: unknown): unknown {
  if (!isMap(patch)) return copyOf(patch);
  const merged: Record<string, unknown> = isMap(original) ? copyOf(original) : {};
  for (const key of Object.keys(patch)) {
    const change = patch[key];
    if (change === null) {
      delete merged[key];
      continue;
    }
    put(merged, key, mergePatch(own(merged, key) ? merged[key] : undefined, change));
  }
  return merged;
}

/** The reference tokens of a JSON pointer (RFC 6901), unescaped. */
function tokensOf(pointer: string): string[] {
  if (pointer === '') return [];
  if (pointer[0] !== '/') throw new PatchApplyError(`invalid JSON pointer "${pointer}"`);
  return pointer
    .slice(1)
    .split('/')
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** An array position: a decimal index within `size` (one past the end for an insert, or `-`). */
function position(list: unknown[], token: string, inserting: boolean): number {
  if (inserting && token === '-') return list.length;
  const size = inserting ? list.length + 1 : list.length;
  if (!/^(0|[1-9]\d*)$/.test(token) || Number(token) >= size) {
    throw new PatchApplyError(`array index "${token}" out of bounds`);
  }
  return Number(token);
}

/** The container holding the pointer's last token, and that token. */
function containerOf(document: unknown, pointer: string): [Node, string] {
  const tokens = tokensOf(pointer);
  const last = tokens.pop();
  if (last === undefined) throw new PatchApplyError('the root document cannot be the target of this operation');
  let node: unknown = document;
  for (const token of tokens) {
    if (Array.isArray(node)) node = node[position(node, token, false)];
    else if (isMap(node) && own(node, token)) node = node[token];
    else throw new PatchApplyError(`doc is missing path: "${pointer}"`);
  }
  if (!isNode(node)) throw new PatchApplyError(`doc is missing path: "${pointer}"`);
  return [node, last];
}

function valueAt(document: unknown, pointer: string): unknown {
  if (pointer === '') return document;
  const [node, token] = containerOf(document, pointer);
  if (Array.isArray(node)) return node[position(node, token, false)];
  if (own(node, token)) return node[token];
  throw new PatchApplyError(`doc is missing path: "${pointer}"`);
}

function insert(document: unknown, pointer: string, value: unknown): void {
  const [node, token] = containerOf(document, pointer);
  if (Array.isArray(node)) node.splice(position(node, token, true), 0, value);
  else put(node, token, value);
}

function replaceAt(document: unknown, pointer: string, value: unknown): void {
  const [node, token] = containerOf(document, pointer);
  if (Array.isArray(node)) node[position(node, token, false)] = value;
  else if (own(node, token)) put(node, token, value);
  else throw new PatchApplyError(`replace operation does not apply: doc is missing key: ${pointer}`);
}

function removeAt(document: unknown, pointer: string): void {
  const [node, token] = containerOf(document, pointer);
  if (Array.isArray(node)) node.splice(position(node, token, false), 1);
  else if (own(node, token)) delete node[token];
  else throw new PatchApplyError(`unable to remove nonexistent key: ${token}: missing value`);
}

/** Deep equality of two JSON values (object member order does not matter, array order does). */
function sameJson(left: unknown, right: unknown): boolean {
  if (Array.isArray(left) || Array.isArray(right)) {
    return (
      Array.isArray(left) &&
      Array.isArray(right) &&
      left.length === right.length &&
      left.every((item, index) => sameJson(item, right[index]))
    );
  }
  if (isMap(left) && isMap(right)) {
    const keys = Object.keys(left);
    return (
      keys.length === Object.keys(right).length &&
      keys.every((key) => own(right, key) && sameJson(left[key], right[key]))
    );
  }
  return left === right;
}

/** RFC 6902: applies the operations in order to a copy of the document; any failure applies none. */
export function jsonPatch(document: unknown, operations: unknown): unknown {
  if (!Array.isArray(operations)) throw new PatchApplyError('a JSON patch must be an array of operations');
  let result = copyOf(document);
  for (const operation of operations) {
    if (!isMap(operation) || typeof operation.path !== 'string') {
      throw new PatchApplyError('each operation needs an "op" and a string "path"');
    }
    const { op, path, from } = operation;
    const needsFrom = op === 'move' || op === 'copy';
    if (needsFrom && typeof from !== 'string')
      throw new PatchApplyError(`operation "${String(op)}" needs a string "from"`);
    if (op === 'add' || op === 'replace') {
      const value = copyOf(operation.value);
      if (path === '') result = value;
      else if (op === 'add') insert(result, path, value);
      else replaceAt(result, path, value);
    } else if (op === 'remove') {
      removeAt(result, path);
    } else if (op === 'move') {
      const moved = valueAt(result, from as string);
      removeAt(result, from as string);
      insert(result, path, moved);
    } else if (op === 'copy') {
      insert(result, path, copyOf(valueAt(result, from as string)));
    } else if (op === 'test') {
      if (!sameJson(valueAt(result, path), operation.value))
        throw new PatchApplyError(`testing value ${path} failed: test failed`);
    } else {
      throw new PatchApplyError(`Unexpected kind: ${String(op)}`);
    }
  }
  return result;
}
