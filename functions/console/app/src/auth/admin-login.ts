// The admin password sign-in (issue 24, item 2): the password goes in `Authorization: Bearer`, as
// spec.md's login route takes it; the answer's ID token becomes the session's bearer token.
import { apiError } from '../api.ts';

export type AdminLoginResult = { ok: true; token: string } | { ok: false; message: string };

/** What the user reads for each refusal: the API tells a wrong password and a disabled account apart by `reason`. */
function refusal(status: number, reason: string | undefined, message: string, retryAfterSeconds?: number): string {
  if (reason === 'InvalidPassword') return 'Wrong password.';
  if (reason === 'AdminAccountDisabled') return 'The admin account is disabled.';
  if (status === 429)
    return retryAfterSeconds
      ? `Too many sign-in attempts: try again in ${retryAfterSeconds} s.`
      : 'Too many sign-in attempts: try again later.';
  return message;
}

export async function adminLogin(apiBaseUrl: string, password: string): Promise<AdminLoginResult> {
  const response = await fetch(`${apiBaseUrl}/api/v1alpha1/auth/login`, {
    method: 'POST',
    credentials: 'omit',
    headers: { authorization: `Bearer ${password}` },
  });
  if (response.ok) return { ok: true, token: ((await response.json()) as { idToken: string }).idToken };
  const error = await apiError(response);
  return { ok: false, message: refusal(error.status, error.reason, error.message, error.retryAfterSeconds) };
}
