// ANSI escape sequences of a log line, read as a terminal would show them: SGR (`ESC [ … m`) sets
// colours and attributes, every other escape sequence and control character is dropped. Pure: the
// viewer turns the segments into text nodes, so no log text is ever read as HTML.

/** One of the 16 terminal colours (0-7 normal, 8-15 bright), or an exact colour (256-colour cube, greys, truecolor). */
export type AnsiColour = { palette: number } | { rgb: readonly [number, number, number] };

export interface AnsiStyle {
  foreground?: AnsiColour;
  background?: AnsiColour;
  bold?: true;
  dim?: true;
  italic?: true;
  underline?: true;
}

export interface AnsiSegment {
  text: string;
  style: AnsiStyle;
}

// CSI (ESC [ params intermediates final), OSC (ESC ] … BEL or ESC \), other two-byte escapes, then
// C0/C1 controls except the tab, and a lone ESC at the end.
const ESCAPES =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  /\u001b\[([0-?]*)[ -/]*[@-~]|\u009b([0-?]*)[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[ -/]*[0-~]|[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/g;

/** Splits a line into runs of text with the style SGR gave them; text between escapes keeps its characters. */
export function parseAnsi(line: string): AnsiSegment[] {
  const segments: AnsiSegment[] = [];
  let style: AnsiStyle = {};
  let last = 0;
  const push = (text: string) => {
    if (text === '') return;
    const previous = segments[segments.length - 1];
    if (previous && previous.style === style) previous.text += text;
    else segments.push({ text, style });
  };
  for (const match of line.matchAll(ESCAPES)) {
    push(line.slice(last, match.index));
    last = match.index + match[0].length;
    const isSgr = match[0].endsWith('m') && (match[1] !== undefined || match[2] !== undefined);
    if (isSgr) style = applySgr(style, match[1] ?? match[2] ?? '');
  }
  push(line.slice(last));
  return segments;
}

/** The line's text as shown: every escape sequence and control character removed. */
export function stripAnsi(line: string): string {
  return line.replace(ESCAPES, '');
}

/** The style after one SGR sequence's parameters (`1;31`, `38;5;208`, `38:2::255:0:0`; empty = reset). */
export function applySgr(current: AnsiStyle, parameters: string): AnsiStyle {
  // Only digits, `;` and `:` make an SGR; anything else (a private `?` sequence) changes nothing.
  if (!/^[\d;:]*$/.test(parameters)) return current;
  const style: AnsiStyle = { ...current };
  const fields = parameters === '' ? [''] : parameters.split(';');
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i]!;
    if (field.includes(':')) {
      // ITU T.416 form: `38:5:n` or `38:2:[colour space]:r:g:b` in one field.
      const [code, ...rest] = field.split(':');
      if (code === '38' || code === '48') setExtended(style, code, rest.map(toNumber), true);
      continue;
    }
    const code = field === '' ? 0 : Number(field);
    if (code === 38 || code === 48) {
      i += setExtended(style, code === 38 ? '38' : '48', fields.slice(i + 1).map(toNumber), false);
      continue;
    }
    applyCode(style, code);
  }
  return style;
}

function applyCode(style: AnsiStyle, code: number): void {
  if (code === 0) {
    for (const key of Object.keys(style) as Array<keyof AnsiStyle>) delete style[key];
  } else if (code === 1) style.bold = true;
  else if (code === 2) style.dim = true;
  else if (code === 3) style.italic = true;
  else if (code === 4) style.underline = true;
  else if (code === 22) {
    delete style.bold;
    delete style.dim;
  } else if (code === 23) delete style.italic;
  else if (code === 24) delete style.underline;
  else if (code >= 30 && code <= 37) style.foreground = { palette: code - 30 };
  else if (code >= 90 && code <= 97) style.foreground = { palette: code - 90 + 8 };
  else if (code === 39) delete style.foreground;
  else if (code >= 40 && code <= 47) style.background = { palette: code - 40 };
  else if (code >= 100 && code <= 107) style.background = { palette: code - 100 + 8 };
  else if (code === 49) delete style.background;
  // Anything else (blink, inverse, fonts…) is not shown.
}

/**
 * Sets a 256-colour or truecolor foreground/background from the parameters after 38/48; returns how
 * many of them it used (semicolon form), so the caller skips them.
 */
function setExtended(style: AnsiStyle, code: '38' | '48', rest: number[], colonForm: boolean): number {
  const key = code === '38' ? 'foreground' : 'background';
  const mode = rest[0];
  if (mode === 5) {
    const index = rest[1];
    if (index !== undefined && index >= 0 && index <= 255) style[key] = colour256(index);
    return 2;
  }
  if (mode === 2) {
    // The colon form may carry a colour-space id before r:g:b (`38:2::r:g:b`, or `38:2:id:r:g:b`).
    const channels = colonForm && rest.length >= 5 ? rest.slice(2, 5) : rest.slice(1, 4);
    const [r, g, b] = channels;
    if ([r, g, b].every((channel) => channel !== undefined && channel >= 0 && channel <= 255))
      style[key] = { rgb: [r!, g!, b!] };
    return 4;
  }
  return rest.length > 0 ? 1 : 0;
}

function toNumber(field: string | undefined): number {
  return field === undefined || field === '' ? Number.NaN : Number(field);
}

/** A 256-colour index: 0-15 the terminal colours, 16-231 the 6×6×6 cube, 232-255 the greys (xterm's values). */
export function colour256(index: number): AnsiColour {
  if (index < 16) return { palette: index };
  if (index < 232) {
    const cube = index - 16;
    const level = (step: number) => (step === 0 ? 0 : 55 + step * 40);
    return { rgb: [level(Math.floor(cube / 36)), level(Math.floor(cube / 6) % 6), level(cube % 6)] };
  }
  const grey = 8 + (index - 232) * 10;
  return { rgb: [grey, grey, grey] };
}

/**
 * How a style is shown: classes for the attributes and the 16 colours (the stylesheet defines them),
 * and CSS colour values for exact colours, set through the CSSOM (allowed by `style-src 'self'`).
 */
export function presentation(style: AnsiStyle): { className: string; colour?: string; backgroundColour?: string } {
  const classes: string[] = [];
  if (style.bold) classes.push('ansi-bold');
  if (style.dim) classes.push('ansi-dim');
  if (style.italic) classes.push('ansi-italic');
  if (style.underline) classes.push('ansi-underline');
  const result: { className: string; colour?: string; backgroundColour?: string } = { className: '' };
  if (style.foreground) {
    if ('palette' in style.foreground) classes.push(`ansi-fg-${style.foreground.palette}`);
    else result.colour = cssRgb(style.foreground.rgb);
  }
  if (style.background) {
    if ('palette' in style.background) classes.push(`ansi-bg-${style.background.palette}`);
    else result.backgroundColour = cssRgb(style.background.rgb);
  }
  result.className = classes.join(' ');
  return result;
}

function cssRgb([r, g, b]: readonly [number, number, number]): string {
  return `rgb(${r}, ${g}, ${b})`;
}
