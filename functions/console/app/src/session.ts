// The signed-in session (issue 24, item 2): the bearer token in memory and in sessionStorage (it
// survives a reload and the OIDC redirect, dies with the tab), never in localStorage.
const TOKEN_KEY = 'console.token';
const RETURN_KEY = 'console.returnTo';
const REASON_KEY = 'console.signInReason';

let token: string | null = sessionStorage.getItem(TOKEN_KEY);

export function currentToken(): string | null {
  return token;
}

export function signIn(newToken: string): void {
  token = newToken;
  sessionStorage.setItem(TOKEN_KEY, newToken);
}

/** Forgets the token (sign-out, or the API refused it); nothing else of the session is kept. */
export function forgetToken(): void {
  token = null;
  sessionStorage.removeItem(TOKEN_KEY);
}

/** Where to go after signing in, and why the user was sent to sign in: kept across the OIDC redirect. */
export function rememberSignInCause(returnTo: string, reason: string | null): void {
  sessionStorage.setItem(RETURN_KEY, returnTo);
  if (reason) sessionStorage.setItem(REASON_KEY, reason);
  else sessionStorage.removeItem(REASON_KEY);
}

/** Why the user is on the sign-in page, keeping where they were going. */
export function rememberSignInReason(reason: string): void {
  sessionStorage.setItem(REASON_KEY, reason);
}

/** Where to go after signing in, keeping the reason already given (a 401 remembered both). */
export function rememberReturnTo(returnTo: string): void {
  sessionStorage.setItem(RETURN_KEY, returnTo);
}

export function signInReason(): string | null {
  return sessionStorage.getItem(REASON_KEY);
}

/** The page to return to after signing in (the projects list by default), forgetting the cause. */
export function takeReturnTo(): string {
  const returnTo = sessionStorage.getItem(RETURN_KEY);
  sessionStorage.removeItem(RETURN_KEY);
  sessionStorage.removeItem(REASON_KEY);
  return returnTo?.startsWith('#/') && !returnTo.startsWith('#/sign-in') ? returnTo : '#/projects';
}
