// Issue 26: the multi-pattern matcher and the masking of a run's log lines, without a server.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  LogMasker,
  MASK,
  MIN_MASKED_LENGTH,
  maskedForms,
  unmaskedNames,
} from '../../../shared/domain/runs/logs/log-masking.ts';
import { MultiPatternMatcher } from '../../../shared/domain/runs/logs/multi-pattern-matcher.ts';

/** Every [start, end) of every pattern in the text, by the slowest obvious search. */
function naiveMatches(patterns: string[], text: string): Array<[number, number]> {
  const found: Array<[number, number]> = [];
  for (let end = 1; end <= text.length; end++) {
    const lengths = patterns.filter((p) => p.length > 0 && text.slice(0, end).endsWith(p)).map((p) => p.length);
    if (lengths.length > 0) found.push([end, Math.max(...lengths)]);
  }
  return found;
}

describe('issue 26: the Aho-Corasick matcher finds the longest pattern ending at each position', () => {
  it('agrees with a naive search on random patterns and texts over a small alphabet', () => {
    const word = fc.string({ unit: fc.constantFrom('a', 'b', 'é', '€'), minLength: 1, maxLength: 5 });
    fc.assert(
      fc.property(
        fc.array(word, { minLength: 1, maxLength: 8 }),
        fc.string({ unit: fc.constantFrom('a', 'b', 'é', '€'), maxLength: 40 }),
        (patterns, text) => {
          const matcher = new MultiPatternMatcher(patterns);
          const found: Array<[number, number]> = [];
          matcher.scan(text, MultiPatternMatcher.START, (end, length) => found.push([end, length]));
          expect(found).toEqual(naiveMatches(patterns, text));
        },
      ),
    );
  });

  it('continues a scan from the characters its depth keeps, in another matcher of the same patterns', () => {
    const patterns = ['secret-value', 'other'];
    const first = new MultiPatternMatcher(patterns);
    const state = first.scan('prefix secret-', MultiPatternMatcher.START, () => undefined);
    const carry = 'prefix secret-'.slice(-first.depth(state));
    expect(carry).toBe('secret-');
    const found: number[] = [];
    new MultiPatternMatcher(patterns).scan(`${carry}value`, MultiPatternMatcher.START, (end) => found.push(end));
    expect(found).toEqual([carry.length + 5]);
  });
});

describe('issue 26: the forms of a value that are masked', () => {
  const value = 'p@ss/wörd+"1"';
  it('includes the value, URL-encoded, JSON-escaped and base64 (standard, URL-safe, at each alignment)', () => {
    const forms = maskedForms(value);
    expect(forms).toEqual(
      expect.arrayContaining([
        value,
        encodeURIComponent(value),
        JSON.stringify(value).slice(1, -1),
        Buffer.from(value).toString('base64'),
        Buffer.from(value).toString('base64url'),
      ]),
    );
    for (const prefix of ['', 'x', 'xy', 'user:']) {
      const embedded = Buffer.from(`${prefix}${value} and more`).toString('base64');
      expect(forms.some((form) => form.length >= 8 && embedded.includes(form))).toBe(true);
    }
  });

  it('issue 38 item 9: form encoding (+ for a space), encodeURI and JSON with \\/ are forms too; lower-case %xx is masked', () => {
    const forms = maskedForms(value);
    const lowerHex = (text: string) => text.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase());
    const spaced = 'a b/c+d "e"';
    expect(maskedForms(spaced)).toEqual(
      expect.arrayContaining([
        new URLSearchParams({ v: spaced }).toString().slice(2),
        encodeURIComponent(spaced).replaceAll('%20', '+'),
        encodeURI(spaced),
        JSON.stringify(spaced).slice(1, -1).replaceAll('/', '\\/'),
      ]),
    );
    expect(forms).toEqual(expect.arrayContaining([encodeURI(value)]));
    // Lower-case %xx is no form of its own: the matcher reads hex letters in any case.
    const masker = new LogMasker([{ name: 'spaced', value: spaced }]);
    for (const encoded of [
      encodeURIComponent(spaced),
      new URLSearchParams({ v: spaced }).toString().slice(2),
      encodeURI(spaced),
    ])
      expect(masker.mask([`<${lowerHex(encoded)}>`], '').lines).toEqual([`<${MASK}>`]);
    // A form that holds a line break can never match (line breaks are read past): it is not kept.
    expect(maskedForms('multi\nline value').some((form) => /[\r\n]/.test(form))).toBe(false);
  });

  it('a value with a lone surrogate (possible in JSON) is still masked, not an error', () => {
    const odd = 'abc\ud800def';
    expect(new LogMasker([{ name: 'odd', value: odd }]).mask([`x ${odd} y`], '').lines).toEqual([`x ${MASK} y`]);
  });

  it('names (never shows) the values shorter than 4 characters, which are not masked', () => {
    expect(
      unmaskedNames([
        { name: 'flag', value: 'yes' },
        { name: 'empty', value: '' },
        { name: 'key', value: 'long enough' },
      ]),
    ).toEqual(['flag']);
    const masker = new LogMasker([{ name: 'flag', value: 'yes' }]);
    expect(masker.mask(['yes yes'], '').lines).toEqual(['yes yes']);
  });
});

describe('issue 26: masking a chunk of log lines', () => {
  const secret = 'hunter2-top-secret';
  const masker = new LogMasker([{ name: 'password', value: secret }]);

  it('replaces each occurrence by *** and keeps the number of lines', () => {
    expect(masker.mask([`a ${secret} b ${secret}`, 'clean', '', secret], '').lines).toEqual([
      `a ${MASK} b ${MASK}`,
      'clean',
      '',
      MASK,
    ]);
  });

  it('masks a value split over two lines on both lines', () => {
    expect(masker.mask(['token: hunter2-', 'top-secret done'], '').lines).toEqual([`token: ${MASK}`, `${MASK} done`]);
  });

  it('issue 38 item 9: masks a value split across a \\r\\n line break, keeping the line ends', () => {
    // A tool's CRLF output split at \n leaves \r at each line end; or the break stays inside one line.
    expect(masker.mask(['token: hunter2-\r', 'top-secret done\r'], '').lines).toEqual([
      `token: ${MASK}\r`,
      `${MASK} done\r`,
    ]);
    expect(masker.mask(['token: hunter2-\r\ntop-secret done'], '').lines).toEqual([`token: ${MASK}\r\n${MASK} done`]);
    expect(masker.mask(['hunter2-top\r\n', '-secret'], '').lines).toEqual([`${MASK}\r\n`, MASK]);
    // Over two chunks, the carry keeps the break: the rest is masked in the next chunk.
    const first = masker.mask(['token: hunter2-to\r'], '');
    expect(first.lines).toEqual([`token: ${MASK}\r`]);
    expect(masker.mask(['p-secret done'], first.carry).lines).toEqual([`${MASK} done`]);
    expect(masker.mask(['\np-secret done'], undefined).lines).toEqual([`\n${MASK} done`]);
  });

  it('masks a value split over two chunks: the end of the first as it may begin the value, the rest with the carry', () => {
    const first = masker.mask(['token: hunter2-to'], '');
    expect(first.lines).toEqual([`token: ${MASK}`]);
    expect(masker.mask(['p-secret done'], first.carry).lines).toEqual([`${MASK} done`]);
    // Without the carry (another replica), a start of at least 4 characters that ends the value is masked.
    expect(masker.mask(['p-secret done'], undefined).lines).toEqual([`${MASK} done`]);
    expect(masker.mask(['p-secret done'], '').lines).toEqual(['p-secret done']);
  });

  it('masks a resent chunk exactly as the first time (idempotent chunks stay duplicates)', () => {
    const first = masker.mask(['x hunter2-', 'top'], '');
    const next = masker.mask(['-secret y', 'z'], first.carry);
    expect(masker.mask(['-secret y', 'z'], first.carry)).toEqual(next);
  });

  it('issue 38 item 9, property: with line breaks anywhere, also inside a value, the stored text read past them holds no value', () => {
    const alphabet = fc.constantFrom('a', 'b', '1', '%', '\r', '\n');
    const readPast = (text: string) => text.replace(/[\r\n]/g, '');
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: fc.constantFrom('a', 'b', '1', '%'), minLength: 4, maxLength: 8 }), {
          minLength: 1,
          maxLength: 3,
        }),
        fc.array(fc.array(fc.string({ unit: alphabet, maxLength: 10 }), { minLength: 1, maxLength: 4 }), {
          minLength: 1,
          maxLength: 4,
        }),
        fc.nat(),
        (values, chunks, seed) => {
          const chunkMasker = new LogMasker(values.map((value, index) => ({ name: `v${index}`, value })));
          let carry = '';
          const stored: string[] = [];
          for (const chunk of chunks) {
            // Each value broken by a \r\n at a place of its own, between random text.
            const raw = chunk.map((line, index) => {
              const value = values[index % values.length]!;
              const at = (seed + index) % (value.length + 1);
              return `${line}${value.slice(0, at)}\r\n${value.slice(at)}${line}`;
            });
            const masked = chunkMasker.mask(raw, carry);
            carry = masked.carry;
            expect(masked.lines).toHaveLength(raw.length);
            stored.push(...masked.lines);
          }
          for (const value of values) expect(readPast(stored.join(''))).not.toContain(value);
        },
      ),
    );
  });

  it('property: no stored line, nor the stored lines joined, holds a value of 4+ characters, whatever the chunks', () => {
    const alphabet = fc.constantFrom('a', 'b', 'c', '1', '=', '%', '/');
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: alphabet, minLength: 4, maxLength: 8 }), { minLength: 1, maxLength: 4 }),
        fc.array(fc.array(fc.string({ unit: alphabet, maxLength: 12 }), { minLength: 1, maxLength: 4 }), {
          minLength: 1,
          maxLength: 4,
        }),
        (values, chunks) => {
          const chunkMasker = new LogMasker(values.map((value, index) => ({ name: `v${index}`, value })));
          let carry = '';
          const stored: string[] = [];
          for (const chunk of chunks) {
            // Values inserted at random places in the raw lines.
            const raw = chunk.map((line, index) => `${line}${values[index % values.length]}${line}`);
            const masked = chunkMasker.mask(raw, carry);
            carry = masked.carry;
            stored.push(...masked.lines);
          }
          for (const value of values) {
            for (const line of stored) expect(line).not.toContain(value);
            expect(stored.join('')).not.toContain(value);
          }
        },
      ),
    );
  });
});

/**
 * A JSON string as Go's encoding/json writes it (Terraform's and OpenTofu's `-json` output), written
 * here independently of the masker: `<`, `>`, `&` as \u escapes unless HTML escaping is off, U+2028
 * and U+2029 always, \b and \f short (Go 1.22 on) or as \u0008 and \u000c (before), other controls as
 * \u00xx; `/` as `\/` if the writer does (PHP). The hex digits of each escape in the case `upper` picks.
 */
function goJsonString(
  value: string,
  options: { html: boolean; shortControls: boolean; slash: boolean },
  upper: (nth: number) => boolean,
): string {
  let escapes = 0;
  const unicode = (code: number) => {
    const hex = code.toString(16).padStart(4, '0');
    return `\\u${upper(escapes++) ? hex.toUpperCase() : hex}`;
  };
  const short: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };
  if (options.shortControls) Object.assign(short, { '\b': '\\b', '\f': '\\f' });
  let out = '';
  for (const char of value) {
    const code = char.charCodeAt(0);
    if (short[char]) out += short[char];
    else if (code < 0x20 || code === 0x2028 || code === 0x2029) out += unicode(code);
    else if (options.html && '<>&'.includes(char)) out += unicode(code);
    else if (options.slash && char === '/') out += '\\/';
    else out += char;
  }
  return out;
}

describe("Issue 44, item 5: masking covers Go's JSON escapes (\\u0026, \\u003c, \\u003e, U+2028/2029), in any hex case", () => {
  it('a value with &, < and > printed by terraform -json is masked', () => {
    const value = 'p&ss<w>rd';
    const masker = new LogMasker([{ name: 'password', value }]);
    for (const printed of ['p\\u0026ss\\u003cw\\u003erd', 'p\\u0026ss\\u003Cw\\u003Erd']) {
      expect(masker.mask([`{"@message":"password = ${printed}"}`], '').lines).toEqual([
        `{"@message":"password = ${MASK}"}`,
      ]);
    }
    const separators = 'line\u2028sep\u2029end';
    expect(new LogMasker([{ name: 's', value: separators }]).mask(['"line\\u2028sep\\u2029end"'], '').lines).toEqual([
      `"${MASK}"`,
    ]);
  });

  it('property: no encoding Go, JavaScript or PHP gives a sensitive value in JSON survives, whatever the hex case', () => {
    const unit = fc.constantFrom(
      'a',
      'Z',
      '1',
      ' ',
      '&',
      '<',
      '>',
      '"',
      '\\',
      '/',
      '\u2028',
      '\u2029',
      '\b',
      '\f',
      '\t',
      '\u0001',
      'é',
    );
    fc.assert(
      fc.property(
        fc.string({ unit, minLength: MIN_MASKED_LENGTH, maxLength: 12 }),
        fc.record({ html: fc.boolean(), shortControls: fc.boolean(), slash: fc.boolean() }),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 16 }),
        (value, options, cases) => {
          const printed = goJsonString(value, options, (nth) => cases[nth % cases.length]!);
          const masker = new LogMasker([{ name: 'secret', value }]);
          // Between characters no encoding of the value holds, so the mask covers exactly the value.
          expect(masker.mask([`#[${printed}]#`], '').lines).toEqual([`#[${MASK}]#`]);
        },
      ),
    );
  });
});
