/**
 * A text as the masker reads it: its line breaks (`\r`, `\n`) left out, so a value a tool split at a
 * `\r\n` (or a `\n`, or whose CRLF lines were split at `\n`, leaving `\r` at each end) reads whole;
 * with the way back to where each character stands in the text. Most chunks hold no break: then the
 * text is read as it is, with no copy.
 */
export class TextPastLineBreaks {
  /** What is read: the text without its line breaks. */
  readonly read: string;
  /** The text's index of each character read, then the text's length; undefined when nothing was left out. */
  readonly #positions: Int32Array | undefined;
  readonly #length: number;

  constructor(text: string) {
    this.#length = text.length;
    if (!/[\r\n]/.test(text)) {
      this.read = text;
      this.#positions = undefined;
      return;
    }
    const positions = new Int32Array(text.length + 1);
    let read = '';
    for (let index = 0; index < text.length; index++) {
      const code = text.charCodeAt(index);
      if (code === 13 || code === 10) continue;
      positions[read.length] = index;
      read += text[index];
    }
    positions[read.length] = text.length;
    this.read = read;
    this.#positions = positions;
  }

  /** Where the character read at `index` stands in the text (the text's length past the last one). */
  at(index: number): number {
    return this.#positions === undefined ? index : index === this.read.length ? this.#length : this.#positions[index]!;
  }

  /** The text's ranges that hold the characters read in [start, end): one per stretch without a line break. */
  ranges(start: number, end: number): Array<[start: number, end: number]> {
    if (start >= end) return [];
    if (this.#positions === undefined) return [[start, end]];
    const ranges: Array<[number, number]> = [];
    let from = this.at(start);
    for (let index = start + 1; index < end; index++) {
      if (this.at(index) !== this.at(index - 1) + 1) {
        ranges.push([from, this.at(index - 1) + 1]);
        from = this.at(index);
      }
    }
    ranges.push([from, this.at(end - 1) + 1]);
    return ranges;
  }
}
