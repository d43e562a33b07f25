/** A compiled route path: `{name}` captures one segment, a trailing `/*` captures the rest. */
export interface PathPattern {
  source: string;
  match(path: string): Record<string, string> | null;
  /** The literal part before the first parameter, used for prefix routing at the gateway. */
  literalPrefix: string;
  /** True when the pattern has no parameters at all. */
  exact: boolean;
}

/** Compiles a route path template into a matcher. */
export function compilePathPattern(source: string): PathPattern {
  const names: string[] = [];
  let regex = '';
  const wildcard = source.endsWith('/*');
  const body = wildcard ? source.slice(0, -2) : source;
  for (const part of body.split(/(\{[a-zA-Z]+\})/)) {
    const param = /^\{([a-zA-Z]+)\}$/.exec(part);
    if (param) {
      names.push(param[1]!);
      regex += '([^/]+)';
    } else {
      regex += part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    }
  }
  if (wildcard) {
    names.push('*');
    regex += '(?:/(.*))?';
  }
  const compiled = new RegExp(`^${regex}$`);
  const firstParam = source.search(/\{|\*/);
  const exact = firstParam === -1;
  const literalPrefix = exact ? source : source.slice(0, firstParam).replace(/\/$/, '');
  return {
    source,
    literalPrefix,
    exact,
    match(path) {
      // A router tries every route in turn: a string comparison turns most of them away before
      // the regular expression runs (issue 25, the request path).
      if (exact) return path === source ? {} : null;
      if (!path.startsWith(literalPrefix)) return null;
      const found = compiled.exec(path);
      if (!found) return null;
      const params: Record<string, string> = {};
      names.forEach((name, index) => {
        params[name] = decodeSegment(found[index + 1] ?? '');
      });
      return params;
    },
  };
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
