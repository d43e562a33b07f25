// Issue 44, item 7: a run's log is text a tool (or whoever wrote into the run) chose, so the plugin
// writes it to a terminal with its colours (SGR) only; every other control sequence (titles, the
// clipboard, screen clears, cursor moves, bells, backspaces, carriage returns), in its 7-bit and its
// 8-bit C1 form, is removed, as it always was for a pipe.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { forTerminal, withoutColours } from '../../../cli/plugin/terminal-colours.ts';

const ESC = '\u001b';
/** Control characters a terminal acts on: C0 but tab and newline, DEL, C1. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const SGR = /\u001b\[[0-9;:]*m/g;

/** Each class of sequence a hostile log line may carry, the way a terminal would read it. */
const HOSTILE: [string, string][] = [
  ['OSC 0 window title ended by BEL', `${ESC}]0;owned\u0007`],
  ['OSC 0 window title ended by ESC \\ (ST)', `${ESC}]0;owned${ESC}\\`],
  ['OSC 52 clipboard write', `${ESC}]52;c;Y3VybCBldmlsIHwgc2g=\u0007`],
  ['OSC 8 hyperlink', `${ESC}]8;;https://evil.example${ESC}\\`],
  ['8-bit OSC ended by 8-bit ST', '\u009d0;owned\u009c'],
  ['8-bit OSC ended by BEL', '\u009d52;c;eA==\u0007'],
  ['clear screen', `${ESC}[2J${ESC}[H`],
  ['8-bit C1 CSI clear screen', '\u009b2J'],
  ['8-bit C1 CSI colour (a terminal would act on it)', '\u009b31m'],
  ['cursor up and erase line', `${ESC}[1A${ESC}[2K`],
  ['private-mode CSI (alternate screen)', `${ESC}[?1049h`],
  ['CSI with a private marker ending in m (modifyOtherKeys, not a colour)', `${ESC}[>4;1m`],
  ['CSI with an intermediate byte ending in m', `${ESC}[1 m`],
  ['DCS string', `${ESC}P1$r0m${ESC}\\`],
  ['8-bit DCS string', '\u00901$r\u009c'],
  ['APC string', `${ESC}_payload${ESC}\\`],
  ['8-bit APC string', '\u009fpayload\u009c'],
  ['PM string', `${ESC}^privacy${ESC}\\`],
  ['SOS string', `${ESC}Xstart${ESC}\\`],
  ['two-character escape (reset the terminal)', `${ESC}c`],
  ['character-set escape', `${ESC}(0`],
  ['bell', '\u0007'],
  ['backspaces over text', '\b\b\b'],
  ['carriage return (overwrites the line)', '\r'],
  ['lone C1 controls (NEL, IND)', '\u0085\u0084'],
  ['DEL', '\u007f'],
];

describe('Issue 44, item 7: on a terminal a run log keeps its colours (SGR) and loses every other control sequence', () => {
  it.each(HOSTILE)('%s is removed on a terminal and in a pipe', (_name, sequence) => {
    const line = `\u001b[1;32m+\u001b[0m before${sequence}after`;
    expect(forTerminal(line)).toBe('\u001b[1;32m+\u001b[0m beforeafter');
    expect(withoutColours(line)).toBe('+ beforeafter');
  });

  // A terminal reads what follows these as part of them, so they are tried at the end of the line.
  it.each([
    ['OSC never ended', `${ESC}]0;owned to the end of the line`],
    ['8-bit APC never ended', '\u009fpayload to the end of the line'],
    ['lone ESC', ESC],
    ['lone 8-bit CSI', '\u009b'],
    ['CSI without its final byte', `${ESC}[12;`],
  ])('%s at the end of the line is removed on a terminal and in a pipe', (_name, sequence) => {
    const line = `\u001b[31mbefore\u001b[0m${sequence}`;
    expect(forTerminal(line)).toBe('\u001b[31mbefore\u001b[0m');
    expect(withoutColours(line)).toBe('before');
  });

  it('keeps tabs, text and the colours OpenTofu prints (including 256-colour and RGB forms)', () => {
    const line = `\u001b[1m\u001b[32m+\u001b[0m\u001b[0m resource "aws_vpc"\t\u001b[38;5;208mx\u001b[38:2::1:2:3my\u001b[m`;
    expect(forTerminal(line)).toBe(line);
    expect(withoutColours(line)).toBe('+ resource "aws_vpc"\txy');
  });

  it('property: on a terminal nothing but text, \\n, \\t and SGR sequences is written; in a pipe, no control at all', () => {
    const piece = fc.oneof(
      fc.constantFrom(
        ...HOSTILE.map(([, sequence]) => sequence),
        '\u001b[31m',
        '\u001b[0m',
        '\u001b[',
        '\u009b',
        '[',
        ']',
        'm',
        '\\',
        ';',
        '0',
        '\t',
        '\n',
      ),
      fc.string({ unit: 'binary', maxLength: 6 }),
      fc.integer({ min: 0, max: 0x9f }).map((code) => String.fromCharCode(code)),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), (pieces) => {
        const line = pieces.join('');
        expect(forTerminal(line).replace(SGR, '')).not.toMatch(CONTROL);
        expect(withoutColours(line)).not.toMatch(CONTROL);
        expect(withoutColours(forTerminal(line))).toBe(withoutColours(line));
      }),
      { numRuns: 300 },
    );
  });

  it('property: a line without control characters is written as it is', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => {
        const plain = text.replace(new RegExp(CONTROL.source, 'g'), '');
        expect(forTerminal(plain)).toBe(plain);
        expect(withoutColours(plain)).toBe(plain);
      }),
    );
  });
});
