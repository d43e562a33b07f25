// Calls to the API with the bearer token (issue 24): `credentials: 'omit'`, so the login cookie is
// never what authenticates the console. Any 401 ends the session with the API's own words for why
// (expired, rotated key, disabled account) and sends the user to sign in (spec: no refresh flow).
import { currentToken } from './session.ts';

/** An answer other than 2xx, with the API's message (`message` of a Status, `error` of the other routes). */
export class ApiError extends Error {
  readonly status: number;
  readonly reason: string | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(status: number, message: string, reason: string | undefined, retryAfterSeconds: number | undefined) {
    super(message);
    this.status = status;
    this.reason = reason;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** Reads an error answer into an ApiError. */
export async function apiError(response: Response): Promise<ApiError> {
  let body: { message?: string; error?: string; reason?: string } = {};
  try {
    body = (await response.json()) as typeof body;
  } catch {
    // not JSON: the status says enough
  }
  const retryAfter = Number(response.headers.get('retry-after'));
  return new ApiError(
    response.status,
    body.message ?? body.error ?? `the API answered ${response.status}`,
    body.reason,
    Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
  );
}

export type UnauthorisedHandler = (reason: string) => void;

export interface Api {
  readonly baseUrl: string;
  get<T>(path: string): Promise<T>;
  post<T>(path: string, body?: unknown): Promise<T>;
}

/** The API at `baseUrl`; `onUnauthorised` hears every 401 (the caller sends the user to sign in). */
export function createApi(baseUrl: string, onUnauthorised: UnauthorisedHandler): Api {
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const token = currentToken();
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      credentials: 'omit',
      headers: {
        accept: 'application/json',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    if (response.ok) return (await response.json()) as T;
    const error = await apiError(response);
    if (response.status === 401) onUnauthorised(error.message);
    throw error;
  };
  return {
    baseUrl,
    get: (path) => call('GET', path),
    post: (path, body) => call('POST', path, body),
  };
}
