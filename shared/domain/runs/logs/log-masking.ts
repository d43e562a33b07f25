import { foldHexLetters, MultiPatternMatcher } from './multi-pattern-matcher.ts';
import { TextPastLineBreaks } from './text-past-line-breaks.ts';

/** What replaces every occurrence of a sensitive value in a run's log (docs/run-history.md, "Masking"). */
export const MASK = '***';
/**
 * Values shorter than this are not masked: a `true` or a `1` would mask every line. The claim
 * answer names them (`unmaskedSensitiveValues`) so the operator knows.
 */
export const MIN_MASKED_LENGTH = 4;

/** A sensitive variable of a run, with its value in clear: only ever in memory. */
export interface SensitiveValue {
  name: string;
  value: string;
}

/**
 * The texts to mask for one value: the value itself (without its line breaks, which the masker reads
 * past), URL-encoded (`encodeURIComponent`, `encodeURI`, form encoding with `+` for a space as
 * `URLSearchParams` and many clients write it), JSON-string-escaped as JavaScript, Go and PHP write it
 * (jsonEscapings), and base64 (standard and URL-safe, whole and as it appears inside a longer encoded
 * text at each of the three byte alignments, where only the characters that depend on the value alone
 * are known). Each at least MIN_MASKED_LENGTH long. The hex digits of escapes (`%2F`, `\u003C`) are
 * matched in any case (the masker's matcher folds A-F), so each form is given in one case only.
 */
export function maskedForms(value: string): string[] {
  const forms = new Set([value.replace(/[\r\n]/g, ''), ...jsonEscapings(value), ...urlEncodings(value)]);
  const bytes = Buffer.from(value, 'utf8');
  const whole = bytes.toString('base64');
  const base64 = [whole, whole.replace(/=+$/, '')];
  for (const offset of [0, 1, 2]) {
    const shifted = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    const size = offset + bytes.length;
    // Characters mixing bits of unknown neighbouring bytes are left out: at the start after a shift,
    // and the last partial group's character that takes bits from the next byte.
    base64.push(shifted.slice(offset === 0 ? 0 : offset + 1, Math.floor(size / 3) * 4 + (size % 3)));
  }
  for (const form of base64) {
    forms.add(form);
    forms.add(form.replaceAll('+', '-').replaceAll('/', '_'));
  }
  return [...forms].filter((form) => form.length >= MIN_MASKED_LENGTH);
}

/**
 * The value as URLs and forms carry it: `encodeURIComponent`, the same with `+` for a space,
 * `application/x-www-form-urlencoded` (URLSearchParams: also `!'()~` escaped), `encodeURI`. None for a
 * lone surrogate, which they refuse (no tool can print it URL-encoded either).
 */
function urlEncodings(value: string): string[] {
  try {
    const component = encodeURIComponent(value);
    return [component, component.replaceAll('%20', '+'), formEncoded(value), encodeURI(value)];
  } catch {
    return [];
  }
}

function formEncoded(value: string): string {
  return new URLSearchParams([['', value]]).toString().slice(1);
}

/**
 * The value inside a JSON string, as each common writer escapes it: JavaScript (`JSON.stringify`); Go's
 * encoding/json, which Terraform and OpenTofu print with `-json` (issue 44, item 5): also `<`, `>`, `&`
 * as `\u003c`, `\u003e`, `\u0026` unless HTML escaping is off, U+2028 and U+2029 always, and before
 * Go 1.22 `\b` and `\f` as `\u0008`, `\u000c`; and each of those with `/` as `\/` (PHP). Every
 * combination, as a writer's choices hold for the whole string: at most 16 forms, most alike.
 */
function jsonEscapings(value: string): Set<string> {
  const forms = new Set<string>();
  for (const html of [false, true])
    for (const lineSeparators of [false, true])
      for (const shortControls of [false, true]) {
        const json = jsonString(value, { html, lineSeparators, shortControls });
        forms.add(json).add(json.replaceAll('/', '\\/'));
      }
  return forms;
}

const JSON_SHORT_ESCAPES: Readonly<Record<string, string>> = {
  '"': '\\"',
  '\\': '\\\\',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};
/** Short escapes JSON.stringify and Go from 1.22 write; older Go writes `\u0008` and `\u000c`. */
const JSON_SHORT_CONTROLS: Readonly<Record<string, string>> = { '\b': '\\b', '\f': '\\f' };
const HTML_ESCAPED = new Set(['<', '>', '&']);

/** The value JSON-escaped (no quotes around) with the writer's choices; JSON.stringify's with none but `shortControls`. */
function jsonString(
  value: string,
  options: { html: boolean; lineSeparators: boolean; shortControls: boolean },
): string {
  const base = JSON.stringify(value).slice(1, -1);
  if (!options.html && !options.lineSeparators && options.shortControls) return base;
  let out = '';
  // Per UTF-16 code unit, as JSON.stringify: a lone surrogate stays the \udxxx escape it gives.
  for (let index = 0; index < value.length; index++) {
    const char = value[index]!;
    const code = value.charCodeAt(index);
    const short = JSON_SHORT_ESCAPES[char] ?? (options.shortControls ? JSON_SHORT_CONTROLS[char] : undefined);
    if (short !== undefined) out += short;
    else if (
      code < 0x20 ||
      (code >= 0xd800 && code <= 0xdfff && !isPairedSurrogate(value, index)) ||
      (options.lineSeparators && (code === 0x2028 || code === 0x2029)) ||
      (options.html && HTML_ESCAPED.has(char))
    )
      out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += char;
  }
  return out;
}

/** Whether the surrogate at `index` is half of a pair (which JSON keeps as it is). */
function isPairedSurrogate(text: string, index: number): boolean {
  const code = text.charCodeAt(index);
  if (code <= 0xdbff) return (text.charCodeAt(index + 1) & 0xfc00) === 0xdc00;
  return (text.charCodeAt(index - 1) & 0xfc00) === 0xd800;
}

/** The names of the sensitive values too short to mask (never their values). */
export function unmaskedNames(values: readonly SensitiveValue[]): string[] {
  return values
    .filter(({ value }) => value.length > 0 && value.length < MIN_MASKED_LENGTH)
    .map(({ name }) => name)
    .sort();
}

/** A chunk of lines after masking, and what the next chunk of the same log needs to continue. */
export interface MaskedChunk {
  lines: string[];
  /** The raw end of the chunk that may begin a sensitive value: the next chunk is scanned after it. */
  carry: string;
}

/**
 * Masks the sensitive values of one run in its log, a chunk of lines at a time. The lines are read
 * as one text (a tool wraps or splits a long value over lines), so a value over two lines is masked
 * on both. Masking a chunk depends only on the chunk and the carry of the chunk before it, so a
 * resent chunk is masked exactly as it was the first time and stays a duplicate.
 */
export class LogMasker {
  readonly #matcher: MultiPatternMatcher;
  readonly #forms: string[];
  /** The forms with their hex letters folded, as the matcher reads them (`#longestEndingPrefix`). */
  readonly #foldedForms: string[];

  constructor(values: readonly SensitiveValue[]) {
    this.#forms = [
      ...new Set(
        values.filter(({ value }) => value.length >= MIN_MASKED_LENGTH).flatMap(({ value }) => maskedForms(value)),
      ),
    ];
    this.#matcher = new MultiPatternMatcher(this.#forms, { foldHexLetters: true });
    this.#foldedForms = this.#forms.map(foldHexLetters);
  }

  /** True when there is nothing to mask: appending skips masking altogether. */
  get empty(): boolean {
    return this.#forms.length === 0;
  }

  /**
   * Masks `lines`. `carry` is the previous chunk's (empty for the first chunk of the log); undefined
   * when it is not known here (another replica or a restart took the previous chunk): then a start
   * of the chunk that ends a sensitive value is masked if at least MIN_MASKED_LENGTH long.
   * At the end of the chunk, a raw end that begins a sensitive value is masked if at least
   * MIN_MASKED_LENGTH long, before the next chunk tells whether the value goes on.
   */
  mask(lines: readonly string[], carry: string | undefined): MaskedChunk {
    if (this.empty) return { lines: [...lines], carry: '' };
    const before = carry ?? '';
    // Line breaks are read past (a value split at a line end reads whole) and stay where they were.
    const joined = before + lines.join('');
    const all = new TextPastLineBreaks(joined);
    const ranges: Array<[start: number, end: number]> = [];
    const maskRead = (start: number, end: number) => {
      for (const [from, to] of all.ranges(start, end)) {
        // What lies inside the carry was masked with the chunk before.
        if (to > before.length) ranges.push([Math.max(0, from - before.length), to - before.length]);
      }
    };
    const state = this.#matcher.scan(all.read, MultiPatternMatcher.START, (end, length) => maskRead(end - length, end));
    const pending = this.#matcher.depth(state);
    const pendingStart = all.read.length - pending;
    if (pending >= MIN_MASKED_LENGTH) maskRead(pendingStart, all.read.length);
    if (carry === undefined) maskRead(0, this.#longestEndingPrefix(all.read));
    return {
      lines: ranges.length === 0 ? [...lines] : maskRanges(lines, ranges),
      carry: joined.slice(all.at(pendingStart)),
    };
  }

  /** The longest start of `text`, at least MIN_MASKED_LENGTH long, that is the end of a form (0: none). */
  #longestEndingPrefix(read: string): number {
    const text = foldHexLetters(read);
    let longest = 0;
    for (const form of this.#foldedForms) {
      for (
        let length = Math.min(form.length - 1, text.length);
        length > Math.max(longest, MIN_MASKED_LENGTH - 1);
        length--
      ) {
        if (text.startsWith(form.slice(form.length - length))) {
          longest = length;
          break;
        }
      }
    }
    return longest;
  }
}

/** Replaces the ranges (offsets in the lines joined without separator) by MASK, line by line. */
function maskRanges(lines: readonly string[], ranges: Array<[number, number]>): string[] {
  const merged = mergeRanges(ranges);
  const masked: string[] = [];
  let lineStart = 0;
  let range = 0;
  for (const line of lines) {
    const lineEnd = lineStart + line.length;
    if (line.length === 0) {
      masked.push(line);
      continue;
    }
    while (range < merged.length && merged[range]![1] <= lineStart) range++;
    let out = '';
    let at = lineStart;
    for (let next = range; next < merged.length && merged[next]![0] < lineEnd; next++) {
      const [start, end] = merged[next]!;
      const from = Math.max(start, lineStart);
      out += line.slice(at - lineStart, from - lineStart) + MASK;
      at = Math.min(end, lineEnd);
    }
    masked.push(at === lineStart && out === '' ? line : out + line.slice(at - lineStart));
    lineStart = lineEnd;
  }
  return masked;
}

/** Sorted, non-overlapping, non-adjacent ranges: one MASK for values that touch or overlap. */
function mergeRanges(ranges: Array<[number, number]>): Array<[number, number]> {
  const sorted = ranges.filter(([start, end]) => end > start).sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const [start, end] of sorted) {
    const last = merged[merged.length - 1];
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  return merged;
}
