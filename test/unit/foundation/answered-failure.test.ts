// What a failure's answer says (its catalogue reason and message), read once per answer for every filter that asks:
// the audit event records them, the metrics count refusals by reason.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { answeredFailure } from '../../../shared/base/http/answered-failure.ts';
import { apiError } from '../../../shared/base/http/error-catalogue.ts';

afterEach(() => vi.restoreAllMocks());

describe("A failure's answer, read once (issues 22 and 23)", () => {
  it("reads an error body's reason and `error`, a Status's reason and `message`", () => {
    expect(answeredFailure({ body: '{"error":"a bearer token is required","reason":"MissingToken"}' })).toEqual({
      reason: 'MissingToken',
      message: 'a bearer token is required',
    });
    expect(answeredFailure({ body: '{"kind":"Status","reason":"NotFound","message":"gone"}' })).toEqual({
      reason: 'NotFound',
      message: 'gone',
    });
  });

  it('nothing from what is not a JSON object, or holds no strings there', () => {
    for (const body of ['not json', '{broken', '[1]', '{"reason":7,"error":""}', Buffer.from('{"reason":"X"}')])
      expect(answeredFailure({ body: body as string })).toEqual({});
  });

  it('the same answer is parsed once, however many times it is asked for', () => {
    const parse = vi.spyOn(JSON, 'parse');
    const response = { body: '{"error":"no","reason":"Forbidden"}' };
    const first = answeredFailure(response);
    expect(answeredFailure(response)).toBe(first);
    expect(parse).toHaveBeenCalledTimes(1);
  });

  it("an API error's answer is known as it is made: nobody parses it back", () => {
    const parse = vi.spyOn(JSON, 'parse');
    const response = apiError('MissingToken', 'a bearer token is required').toResponse();
    expect(answeredFailure(response)).toEqual({ reason: 'MissingToken', message: 'a bearer token is required' });
    expect(parse).not.toHaveBeenCalled();
    expect(JSON.parse(response.body as string)).toEqual({
      error: 'a bearer token is required',
      reason: 'MissingToken',
    });
  });
});
