import type { ApiResponse } from './api-request.ts';

/** What a failure's JSON answer says: its catalogue `reason` and its message, each when present. */
export interface AnsweredFailure {
  reason?: string;
  message?: string;
}

// One read per answer, however many filters ask (the audit event and the metrics both do).
const read = new WeakMap<object, AnsweredFailure>();

/** Says what a failure answer holds as it is made, so that no reader parses the JSON it was written to. */
export function answeredWith<Response extends object>(response: Response, failure: AnsweredFailure): Response {
  read.set(response, failure);
  return response;
}

/**
 * A failure's catalogue `reason` and its message, read from the JSON answer (an error body's `error`,
 * or a Kubernetes Status's `message`); nothing for anything else (a stream, bytes, not JSON).
 */
export function answeredFailure(response: Pick<ApiResponse, 'body'>): AnsweredFailure {
  let failure = read.get(response);
  if (failure === undefined) {
    failure = parsedFailure(response.body);
    read.set(response, failure);
  }
  return failure;
}

function parsedFailure(body: ApiResponse['body']): AnsweredFailure {
  if (typeof body !== 'string' || !body.startsWith('{')) return {};
  let answer: Record<string, unknown>;
  try {
    answer = JSON.parse(body) as Record<string, unknown>;
  } catch {
    return {};
  }
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  const reason = text(answer.reason);
  const message = text(answer.error) ?? text(answer.message);
  return { ...(reason ? { reason } : {}), ...(message ? { message } : {}) };
}
