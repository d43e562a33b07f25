// A run's log keeps the colours the tool wrote (OpenTofu's and Terraform's ANSI escapes) where a person
// reads it, and loses them where a program does (a pipe, a file) or when asked (--no-color).

// CSI sequences (7-bit and the C1 byte: colours, cursor moves), OSC sequences (titles, hyperlinks), other
// escapes, and the control characters that move the cursor or ring (a tab and a newline stay).
const ESCAPE_SEQUENCES =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  /\u001b\[[0-?]*[ -/]*[@-~]|\u009b[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[ -/]*[0-~]|[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** `line` without terminal escape sequences. */
export function withoutColours(line: string): string {
  return line.replace(ESCAPE_SEQUENCES, '');
}
