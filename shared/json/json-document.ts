/**
 * How deep a JSON request body may nest. Kubernetes allows 10,000; no platform object comes near
 * 20, and every walk over a body (validation, the sensitive-value rules, serialising) recurses,
 * so the limit sits far below where a stack could run out.
 */
export const MAX_JSON_DEPTH = 100;

/** A JSON text that is not a document the server accepts; `reason` is stable for clients. */
export class JsonDocumentError extends Error {
  readonly reason: 'MalformedJson' | 'JsonNestingTooDeep';

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
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new JsonDocumentError('MalformedJson', `the request body is not valid JSON: ${(error as Error).message}`);
  }
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
