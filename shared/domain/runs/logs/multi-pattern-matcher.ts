/**
 * An Aho-Corasick automaton over UTF-16 code units: finds every occurrence of any of its patterns in
 * one pass over a text, whatever the number of patterns (issue 26: masking a run's sensitive values
 * in its log). No dependency of this project provides one (none may be added), hence this small one.
 *
 * A state is a node of the patterns' trie: the longest suffix of what was read that begins some
 * pattern. Its `depth` is that suffix's length, so a caller can keep just those last characters to
 * continue a scan later (even with another matcher built from the same patterns).
 *
 * With `foldHexLetters`, `A`-`F` read as `a`-`f` in patterns and text alike, so an escape's hex digits
 * match in any case (`%2F`, `\u003C`; issue 44, item 5) without one pattern per case combination.
 */
export class MultiPatternMatcher {
  /** Transitions of the trie, keyed `node * 65536 + code unit`: one map instead of one per node. */
  readonly #edges = new Map<number, number>();
  /** From the root, for ASCII: a direct table, as most characters of a log start no pattern. */
  readonly #fromRootAscii = new Int32Array(128);
  readonly #fail: number[] = [0];
  readonly #depth: number[] = [0];
  /** The longest pattern ending at each node, its own or one of its suffixes' (0: none). */
  readonly #longestEnding: number[] = [0];
  readonly #foldHexLetters: boolean;

  constructor(patterns: Iterable<string>, options: { foldHexLetters?: boolean } = {}) {
    this.#foldHexLetters = options.foldHexLetters ?? false;
    for (const pattern of patterns) this.#add(this.#foldHexLetters ? foldHexLetters(pattern) : pattern);
    this.#link();
  }

  /** Where a scan starts: nothing read yet. */
  static readonly START = 0;

  /** How many characters the state `state` stands for (the suffix that may still become a pattern). */
  depth(state: number): number {
    return this.#depth[state]!;
  }

  /**
   * Reads `text` from `state`. For each position where a pattern ends, calls `onMatch(end, length)`
   * with the end (exclusive) and the longest such pattern's length: shorter ones ending there lie
   * inside it. Returns the state after the text.
   */
  scan(text: string, state: number, onMatch: (end: number, length: number) => void): number {
    const edges = this.#edges;
    const fail = this.#fail;
    const longestEnding = this.#longestEnding;
    const fold = this.#foldHexLetters;
    for (let index = 0; index < text.length; index++) {
      let code = text.charCodeAt(index);
      if (fold && code >= 65 && code <= 70) code += 32;
      if (state === 0) {
        state = this.#fromRoot(code);
      } else {
        let next = edges.get(state * 65536 + code);
        while (next === undefined && state !== 0) {
          state = fail[state]!;
          next = state === 0 ? this.#fromRoot(code) : edges.get(state * 65536 + code);
        }
        state = next ?? 0;
      }
      const length = longestEnding[state]!;
      if (length > 0) onMatch(index + 1, length);
    }
    return state;
  }

  #fromRoot(code: number): number {
    return code < 128 ? this.#fromRootAscii[code]! : (this.#edges.get(code) ?? 0);
  }

  #add(pattern: string): void {
    let node = 0;
    for (let index = 0; index < pattern.length; index++) {
      const key = node * 65536 + pattern.charCodeAt(index);
      let next = this.#edges.get(key);
      if (next === undefined) {
        next = this.#depth.length;
        this.#edges.set(key, next);
        this.#depth.push(index + 1);
        this.#fail.push(0);
        this.#longestEnding.push(0);
      }
      node = next;
    }
    if (pattern.length > 0) this.#longestEnding[node] = pattern.length;
  }

  /** Failure links breadth first (a node's link is shallower, so it is final when the node is reached). */
  #link(): void {
    const children = new Map<number, Array<[code: number, child: number]>>();
    for (const [key, child] of this.#edges) {
      const parent = Math.floor(key / 65536);
      const list = children.get(parent) ?? [];
      list.push([key % 65536, child]);
      children.set(parent, list);
    }
    for (const [code, child] of children.get(0) ?? []) if (code < 128) this.#fromRootAscii[code] = child;
    const queue = (children.get(0) ?? []).map(([, child]) => child);
    for (let head = 0; head < queue.length; head++) {
      const node = queue[head]!;
      for (const [code, child] of children.get(node) ?? []) {
        let link = this.#fail[node]!;
        let target = link === 0 ? this.#fromRoot(code) : this.#edges.get(link * 65536 + code);
        while (target === undefined && link !== 0) {
          link = this.#fail[link]!;
          target = link === 0 ? this.#fromRoot(code) : this.#edges.get(link * 65536 + code);
        }
        this.#fail[child] = target ?? 0;
        this.#longestEnding[child] = Math.max(this.#longestEnding[child]!, this.#longestEnding[target ?? 0]!);
        queue.push(child);
      }
    }
  }
}

/** `text` with `A`-`F` as `a`-`f`, as a matcher with `foldHexLetters` reads it (same length, same positions). */
export function foldHexLetters(text: string): string {
  return text.replace(/[A-F]/g, (letter) => letter.toLowerCase());
}
