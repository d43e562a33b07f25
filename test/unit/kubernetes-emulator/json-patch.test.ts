// Issue 21, item 1: the emulator applies PATCH bodies with its own code (infra/kube-emulator/objects/json-patch.ts),
// not the API server's (shared/base/json/patches.ts), so a patch bug in the server can show in tests. Each is
// held to RFC 6902's and RFC 7386's own examples, and the two are compared on random documents and
// patches: two independent implementations agreeing, result or refusal, is evidence for both.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PatchApplyError, jsonPatch, mergePatch } from '../../../infra/kube-emulator/objects/json-patch.ts';
import { JsonPatchError, applyJsonPatch, applyMergePatch } from '../../../shared/base/json/patches.ts';

const implementations = [
  ['the emulator', jsonPatch, mergePatch, PatchApplyError],
  ['the API server', applyJsonPatch, applyMergePatch, JsonPatchError],
] as const;

describe.each(implementations)('%s: RFC 6902 and RFC 7386 examples', (_, patch, merge, PatchError) => {
  it('adds an object member, an array element, and appends with "-" (RFC 6902 A.1, A.2, A.16)', () => {
    expect(patch({ foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux' }])).toEqual({ foo: 'bar', baz: 'qux' });
    expect(patch({ foo: ['bar', 'baz'] }, [{ op: 'add', path: '/foo/1', value: 'qux' }])).toEqual({
      foo: ['bar', 'qux', 'baz'],
    });
    expect(patch({ foo: ['bar'] }, [{ op: 'add', path: '/foo/-', value: ['abc', 'def'] }])).toEqual({
      foo: ['bar', ['abc', 'def']],
    });
  });

  it('removes, replaces, moves and copies (A.3, A.5, A.6, A.7)', () => {
    expect(patch({ baz: 'qux', foo: 'bar' }, [{ op: 'remove', path: '/baz' }])).toEqual({ foo: 'bar' });
    expect(patch({ baz: 'qux', foo: 'bar' }, [{ op: 'replace', path: '/baz', value: 'boo' }])).toEqual({
      baz: 'boo',
      foo: 'bar',
    });
    expect(
      patch({ foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } }, [
        { op: 'move', from: '/foo/waldo', path: '/qux/thud' },
      ]),
    ).toEqual({ foo: { bar: 'baz' }, qux: { corge: 'grault', thud: 'fred' } });
    expect(patch({ foo: ['all', 'grass', 'cows', 'eat'] }, [{ op: 'move', from: '/foo/1', path: '/foo/3' }])).toEqual({
      foo: ['all', 'cows', 'eat', 'grass'],
    });
    expect(patch({ a: { b: 1 } }, [{ op: 'copy', from: '/a', path: '/c' }])).toEqual({ a: { b: 1 }, c: { b: 1 } });
  });

  it('tests a value, and a failed test or a missing target applies nothing (A.8, A.9, A.12)', () => {
    const document = { baz: 'qux', foo: ['a', 2, 'c'] };
    expect(patch(document, [{ op: 'test', path: '/foo', value: ['a', 2, 'c'] }])).toEqual(document);
    expect(() =>
      patch(document, [
        { op: 'add', path: '/x', value: 1 },
        { op: 'test', path: '/baz', value: 'bar' },
      ]),
    ).toThrow(PatchError);
    expect(() => patch({ foo: 'bar' }, [{ op: 'add', path: '/baz/bat', value: 'qux' }])).toThrow(PatchError);
    expect(document).toEqual({ baz: 'qux', foo: ['a', 2, 'c'] });
  });

  it('refuses what is not a patch: no array, an unknown op, a bad pointer, an index out of bounds', () => {
    for (const bad of [
      {},
      [{ op: 'jump', path: '/a' }],
      [{ op: 'add', path: 'a', value: 1 }],
      [{ op: 'remove', path: '/list/9' }],
    ]) {
      expect(() => patch({ list: [1] }, bad)).toThrow(PatchError);
    }
  });

  it('merge patches as RFC 7386 section 3 shows', () => {
    expect(
      merge(
        {
          title: 'Goodbye!',
          author: { givenName: 'John', familyName: 'Doe' },
          tags: ['example', 'sample'],
          content: 'x',
        },
        { title: 'Hello!', phoneNumber: '+01-123-456-7890', author: { familyName: null }, tags: ['example'] },
      ),
    ).toEqual({
      title: 'Hello!',
      author: { givenName: 'John' },
      tags: ['example'],
      content: 'x',
      phoneNumber: '+01-123-456-7890',
    });
    expect(merge({ a: 'b' }, ['c'])).toEqual(['c']);
    expect(merge(['a'], { a: 'b' })).toEqual({ a: 'b' });
  });

  it('treats __proto__ as a member: it neither reads nor changes a prototype', () => {
    const patched = merge({}, JSON.parse('{"__proto__": {"polluted": true}}')) as Record<string, unknown>;
    expect(Object.hasOwn(patched, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(() => patch({}, [{ op: 'add', path: '/__proto__/polluted', value: true }])).toThrow(PatchError);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

const key = fc.constantFrom('a', 'b', 'c', 'spec', 'labels');
const leaf = fc.oneof(fc.integer({ min: -3, max: 3 }), fc.constantFrom('x', 'y', true, null));
const json = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, leaf, tie('object'), tie('array')),
  object: fc.dictionary(key, tie('value'), { maxKeys: 3 }),
  array: fc.array(tie('value'), { maxLength: 3 }),
})).value;
const pointer = fc
  .array(fc.oneof(key, fc.constantFrom('0', '1', '-', '9')), { maxLength: 3 })
  .map((tokens) => tokens.map((token) => `/${token}`).join(''));
const operation = fc.oneof(
  fc.record({ op: fc.constantFrom('add', 'replace', 'test'), path: pointer, value: json }),
  fc.record({ op: fc.constant('remove'), path: pointer }),
  fc.record({ op: fc.constantFrom('move', 'copy'), from: pointer, path: pointer }),
);

/** What applying a patch comes to: the document, or a refusal (its message aside). */
function outcome(apply: () => unknown, PatchError: new () => Error): unknown {
  try {
    return { result: apply() };
  } catch (error) {
    if (error instanceof PatchError) return 'refused';
    throw error;
  }
}

describe('the emulator and the API server agree on every patch (issue 21: two implementations, not one shared)', () => {
  it('JSON patch: the same document, or both refuse', () => {
    fc.assert(
      fc.property(json, fc.array(operation, { maxLength: 4 }), (document, operations) => {
        expect(outcome(() => jsonPatch(document, operations), PatchApplyError)).toEqual(
          outcome(() => applyJsonPatch(document, operations), JsonPatchError),
        );
      }),
      { numRuns: 2000 },
    );
  });

  it('merge patch: the same document', () => {
    fc.assert(
      fc.property(json, json, (document, patch) => {
        expect(mergePatch(document, patch)).toEqual(applyMergePatch(document, patch));
      }),
      { numRuns: 2000 },
    );
  });
});
