// Issue 20 (hostile sweep): a JSON body naming a field twice is refused, whichever way the name is written.
import { describe, expect, it } from 'vitest';
import { parseJsonDocument } from '../../../shared/base/json/json-document.ts';

const refusal = (text: string) => {
  try {
    parseJsonDocument(text);
  } catch (error) {
    return (error as Error).message;
  }
  return undefined;
};

describe('A JSON document naming a field twice in one object is refused by its path', () => {
  it('names written plainly, with escapes, or both are the same name', () => {
    expect(refusal('{"type":"plan","type":"apply"}')).toContain('duplicate field "type"');
    expect(refusal('{"type":"plan","\\u0074ype":"apply"}')).toContain('duplicate field "type"');
    expect(refusal('{"spec":{"a\\"b":1,"a\\u0022b":2}}')).toContain('duplicate field "spec.a\\"b"');
  });

  it('equal names in different objects, or a name and a value alike, are not duplicates', () => {
    expect(refusal('{"a":{"x":1},"b":{"x":2},"c":"a","d":["a","a"]}')).toBeUndefined();
    expect(refusal('{"a\\\\":1,"a":2}')).toBeUndefined();
  });
});
