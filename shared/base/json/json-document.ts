/**
 * How deep a JSON request body may nest. Kubernetes allows 10,000; no platform object comes near
 * 20, and every walk over a body (validation, the sensitive-value rules, serialising) recurses,
 * so the limit sits far below where a stack could run out.
 */
export const MAX_JSON_DEPTH = 100;

/** A JSON text that is not a document the server accepts; `reason` is stable for clients. */
export class JsonDocumentError extends Error {
  readonly reason: 'MalformedJson' | 'JsonNestingTooDeep' | 'DuplicateJsonField';

  constructor(reason: JsonDocumentError['reason'], message: string) {
    super(message);
    this.name = 'JsonDocumentError';
    this.reason = reason;
  }
}

/** Parses a JSON text whose arrays and objects nest at most MAX_JSON_DEPTH deep. */
export function parseJsonDocument(text: string): unknown {
  if (nestingDepth(text) > MAX_JSON_DEPTH) {
    throw new JsonDocumentError('JsonNestingTooDeep', `the JSON document nests deeper than ${MAX_JSON_DEPTH} levels`);
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new JsonDocumentError('MalformedJson', `the request body is not valid JSON: ${(error as Error).message}`);
  }
  // JSON.parse keeps the last of two equal names: `{"dryRun":["All"],"dryRun":[]}` was a real delete.
  // Which one the client meant cannot be known, so neither is chosen, as YAML bodies (uniqueKeys) already were.
  const duplicate = duplicateMember(text);
  if (duplicate !== undefined)
    throw new JsonDocumentError(
      'DuplicateJsonField',
      `the request body is refused: duplicate field ${JSON.stringify(duplicate)} (a JSON object names each field once)`,
    );
  return document;
}

interface Frame {
  /** The names seen so far in an object; undefined for an array. */
  names: Set<string> | undefined;
  /** The object's current member, or the array's current index. */
  at: string | number;
}

/** The first member name that stands twice in one object of a valid JSON text, as a path (`spec.stages[1].name`). */
function duplicateMember(text: string): string | undefined {
  const frames: Frame[] = [];
  let expectName = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 0x22) {
      let end = index + 1;
      while (text.charCodeAt(end) !== 0x22) end += text.charCodeAt(end) === 0x5c ? 2 : 1;
      if (expectName) {
        const frame = frames.at(-1)!;
        // A name without escapes is its own text; only one with a backslash needs decoding.
        const raw = text.slice(index + 1, end);
        const name = raw.includes('\\') ? (JSON.parse(text.slice(index, end + 1)) as string) : raw;
        frame.at = name;
        if (frame.names!.has(name)) return pathOf(frames);
        frame.names!.add(name);
        expectName = false;
      }
      index = end;
    } else if (code === 0x7b) {
      frames.push({ names: new Set(), at: '' });
      expectName = true;
    } else if (code === 0x5b) {
      frames.push({ names: undefined, at: 0 });
    } else if (code === 0x7d || code === 0x5d) {
      frames.pop();
    } else if (code === 0x2c) {
      const frame = frames.at(-1)!;
      if (frame.names) expectName = true;
      else frame.at = (frame.at as number) + 1;
    }
  }
  return undefined;
}

function pathOf(frames: Frame[]): string {
  return frames.map(({ at }, index) => (typeof at === 'number' ? `[${at}]` : index === 0 ? at : `.${at}`)).join('');
}

/** Throws JsonNestingTooDeep when a parsed value (a YAML document, say) nests deeper than MAX_JSON_DEPTH. */
export function assertNestingWithinLimit(value: unknown): void {
  // An explicit stack: the value may be exactly what would exhaust the call stack.
  const pending: Array<[unknown, number]> = [[value, 0]];
  while (pending.length > 0) {
    const [item, depth] = pending.pop()!;
    if (typeof item !== 'object' || item === null) continue;
    if (depth + 1 > MAX_JSON_DEPTH)
      throw new JsonDocumentError('JsonNestingTooDeep', `the document nests deeper than ${MAX_JSON_DEPTH} levels`);
    for (const child of Object.values(item)) pending.push([child, depth + 1]);
  }
}

// One pass over the text, counting brackets outside strings: the depth is known before anything recurses.
function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c) index++;
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) {
      inString = true;
    } else if (code === 0x5b || code === 0x7b) {
      if (++depth > deepest) deepest = depth;
    } else if (code === 0x5d || code === 0x7d) {
      depth--;
    }
  }
  return deepest;
}
