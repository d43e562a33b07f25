// A run's log keeps the colours the tool wrote (OpenTofu's and Terraform's ANSI escapes) where a person
// reads it, and loses them where a program does (a pipe, a file) or when asked (--no-color).
// Whatever else a log line carries is text anyone able to write into a run chose (issue 44, item 7), so
// no other control sequence reaches the terminal: a window title or clipboard write (OSC 0, OSC 52), a
// screen clear or cursor move, a bell, a backspace or carriage return that overwrites what was printed.

// Each alternative is a sequence as a terminal reads it, in its 7-bit (ESC ...) and 8-bit C1 forms:
// - CSI: ESC [ or U+009B, parameter bytes, intermediate bytes, a final byte or the end of the line
//   (colours, cursor moves, clears);
// - control strings: OSC (ESC ] or U+009D), DCS (ESC P, U+0090), SOS (ESC X, U+0098), PM (ESC ^, U+009E)
//   and APC (ESC _, U+009F), to BEL or ST (ESC \ or U+009C), or to the end of the line when unended;
// - any other escape: ESC, intermediate bytes, a final byte (ESC c resets the terminal);
// - a control character alone: C0 but the tab (lines come without their newline), DEL, C1, a lone ESC.
const CONTROL_SEQUENCES =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  /(?:\u001b\[|\u009b)[0-?]*[ -/]*(?:[@-~]|$)|(?:\u001b[\]PX^_]|[\u0090\u0098\u009d-\u009f])[\s\S]*?(?:\u0007|\u001b\\|\u009c|$)|\u001b[ -/]*[0-~]|[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * Select Graphic Rendition in its 7-bit form, with digits, `;` and `:` only: the colours and weights.
 * A private marker (`ESC[>4;1m` sets xterm's modifyOtherKeys) or an intermediate byte makes it another
 * command, and the 8-bit form is left out so that what is kept reads the same on every terminal.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const SGR = /^\u001b\[[0-9;:]*m$/;

/** `line` without terminal escape sequences or control characters but the tab: for a pipe, a file, --no-color. */
export function withoutColours(line: string): string {
  return line.replace(CONTROL_SEQUENCES, '');
}

/** `line` for a terminal: its colours (SGR) kept, every other control sequence and character removed. */
export function forTerminal(line: string): string {
  return line.replace(CONTROL_SEQUENCES, (sequence) => (SGR.test(sequence) ? sequence : ''));
}
