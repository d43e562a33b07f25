import { expect } from 'vitest';

/** Asserts an error response's status and (when given) `reason`, and returns its JSON body. */
export async function expectStatus(
  response: Response,
  status: number,
  reason?: string,
): Promise<{ error: string; reason: string }> {
  const body = (await response.json()) as { error: string; reason: string };
  expect(response.status, JSON.stringify(body)).toBe(status);
  if (reason) expect(body.reason).toBe(reason);
  return body;
}
