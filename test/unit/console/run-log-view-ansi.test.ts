// Issue 24, item 4 ("ANSI colours rendered"): the run-log viewer's SGR reader. Colours and
// attributes from SGR sequences (16 colours, bright, 256, truecolor, bold, dim, italic, underline,
// reset); every other escape sequence and control character is dropped, and the text between them
// is kept exactly (the viewer puts it in text nodes, never markup).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type AnsiStyle,
  applySgr,
  colour256,
  parseAnsi,
  presentation,
  stripAnsi,
} from '../../../functions/console/app/src/run-log/ansi.ts';

const ESC = '\u001b';
const sgr = (parameters: string) => `${ESC}[${parameters}m`;

describe('SGR sequences set colours and attributes; reset and the "off" codes clear them', () => {
  it('reads the 8 colours, their bright forms, backgrounds and the defaults', () => {
    expect(parseAnsi(`${sgr('31')}red${sgr('92')}bright green${sgr('39')}plain`)).toEqual([
      { text: 'red', style: { foreground: { palette: 1 } } },
      { text: 'bright green', style: { foreground: { palette: 10 } } },
      { text: 'plain', style: {} },
    ]);
    expect(parseAnsi(`${sgr('44;107')}x${sgr('49')}y`)).toEqual([
      { text: 'x', style: { background: { palette: 15 } } },
      { text: 'y', style: {} },
    ]);
  });

  it('reads bold, dim, italic, underline and their off codes, together in one sequence', () => {
    expect(parseAnsi(`${sgr('1;2;3;4')}all${sgr('22')}no weight${sgr('23;24')}none`)).toEqual([
      { text: 'all', style: { bold: true, dim: true, italic: true, underline: true } },
      { text: 'no weight', style: { italic: true, underline: true } },
      { text: 'none', style: {} },
    ]);
  });

  it('resets everything with 0 and with an empty sequence', () => {
    for (const reset of [sgr('0'), sgr(''), `${ESC}[;m`]) {
      expect(parseAnsi(`${sgr('1;31;42')}a${reset}b`)[1]).toEqual({ text: 'b', style: {} });
    }
  });

  it('reads 256 colours (terminal colours, the cube, greys) and truecolor, in semicolon and colon forms', () => {
    expect(colour256(9)).toEqual({ palette: 9 });
    expect(colour256(16)).toEqual({ rgb: [0, 0, 0] });
    expect(colour256(208)).toEqual({ rgb: [255, 135, 0] });
    expect(colour256(231)).toEqual({ rgb: [255, 255, 255] });
    expect(colour256(232)).toEqual({ rgb: [8, 8, 8] });
    expect(colour256(255)).toEqual({ rgb: [238, 238, 238] });
    expect(applySgr({}, '38;5;208')).toEqual({ foreground: { rgb: [255, 135, 0] } });
    expect(applySgr({}, '48;2;10;20;30;1')).toEqual({ background: { rgb: [10, 20, 30] }, bold: true });
    expect(applySgr({}, '38:2::1:2:3')).toEqual({ foreground: { rgb: [1, 2, 3] } });
    expect(applySgr({}, '38:5:1')).toEqual({ foreground: { palette: 1 } });
  });

  it('ignores out-of-range and incomplete extended colours, and codes it does not show', () => {
    expect(applySgr({}, '38;5;256')).toEqual({});
    expect(applySgr({}, '38;2;1;2')).toEqual({});
    expect(applySgr({}, '5;7;53')).toEqual({});
    expect(applySgr({ bold: true }, '?25')).toEqual({ bold: true });
  });
});

describe('Every other escape sequence and control character is stripped; the text around them is kept', () => {
  it('drops cursor moves, erases, OSC titles and hyperlinks, charset selections, and a lone ESC', () => {
    const line = `${ESC}[2K${ESC}[1Gstart ${ESC}]0;title\u0007${ESC}]8;;https://x\u001b\\link${ESC}]8;;\u001b\\ ${ESC}(Bend${ESC}`;
    expect(stripAnsi(line)).toBe('start link end');
    expect(parseAnsi(line)).toEqual([{ text: 'start link end', style: {} }]);
  });

  it('drops control characters but keeps tabs and any printable text, HTML included', () => {
    expect(stripAnsi('a\u0000b\u0007c\td\re\u0085f\u009b2Jg')).toBe('abc\tdefg');
    expect(parseAnsi('<img src=x onerror=alert(1)>')).toEqual([{ text: '<img src=x onerror=alert(1)>', style: {} }]);
  });

  it('never throws, and the segments are exactly the line without its escapes (property)', () => {
    const piece = fc.oneof(
      fc.string(),
      fc.constantFrom(ESC, '\u009b', '\u0007', '[', ';', ':', 'm', '\r'),
      fc.array(fc.integer({ min: 0, max: 300 }), { maxLength: 6 }).map((codes) => sgr(codes.join(';'))),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const line = pieces.join('');
        const segments = parseAnsi(line);
        expect(segments.map((segment) => segment.text).join('')).toBe(stripAnsi(line));
        for (const segment of segments) {
          expect(segment.text).not.toBe('');
          // biome-ignore lint/suspicious/noControlCharactersInRegex: what must not remain
          expect(segment.text).not.toMatch(/[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/);
        }
      }),
    );
  });

  it('a style written as SGR reads back as that style (property)', () => {
    const colour = fc.oneof(
      fc.integer({ min: 0, max: 15 }).map((palette) => ({ palette })),
      fc
        .tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }))
        .map((rgb) => ({ rgb })),
    );
    const style = fc.record(
      {
        foreground: colour,
        background: colour,
        bold: fc.constant(true as const),
        dim: fc.constant(true as const),
        italic: fc.constant(true as const),
        underline: fc.constant(true as const),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(
        style,
        fc.string({ minLength: 1 }).filter((text) => stripAnsi(text) === text),
        (wanted, text) => {
          expect(parseAnsi(`${sgr('1;4;31')}x${sgr(toSgr(wanted))}${text}`)[1]).toEqual({ text, style: wanted });
        },
      ),
    );
  });
});

describe('How a style is shown: classes for attributes and the 16 colours, CSS colours for exact ones', () => {
  it('names classes for the palette and attributes and gives rgb() values for exact colours', () => {
    expect(
      presentation({ bold: true, underline: true, foreground: { palette: 9 }, background: { palette: 0 } }),
    ).toEqual({
      className: 'ansi-bold ansi-underline ansi-fg-9 ansi-bg-0',
    });
    expect(presentation({ foreground: { rgb: [255, 135, 0] }, background: { rgb: [1, 2, 3] } })).toEqual({
      className: '',
      colour: 'rgb(255, 135, 0)',
      backgroundColour: 'rgb(1, 2, 3)',
    });
  });
});

/** Writes a style as one SGR parameter list, after a reset. */
function toSgr(style: AnsiStyle): string {
  const codes = ['0'];
  if (style.bold) codes.push('1');
  if (style.dim) codes.push('2');
  if (style.italic) codes.push('3');
  if (style.underline) codes.push('4');
  for (const [colour, base, brightBase, extended] of [
    [style.foreground, 30, 90, 38],
    [style.background, 40, 100, 48],
  ] as const) {
    if (colour === undefined) continue;
    if ('palette' in colour)
      codes.push(String(colour.palette < 8 ? base + colour.palette : brightBase + colour.palette - 8));
    else codes.push(`${extended};2;${colour.rgb.join(';')}`);
  }
  return codes.join(';');
}
