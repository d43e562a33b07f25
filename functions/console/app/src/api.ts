// Calls to the API with the bearer token (issue 24): `credentials: 'omit'`, so the login cookie is
// never what authenticates the console. Any 401 ends the session with the API's own words for why
// (expired, rotated key, disabled account) and sends the user to sign in (spec: no refresh flow).
import { currentToken } from './session.ts';
import { warningTexts } from './warnings.ts';

/** One field the server found wrong: a `Status`'s `details.causes[]` (`spec.tool.version`, `spec.variables[0].name`). */
export interface FieldCause {
  field?: string;
  message?: string;
  reason?: string;
}

/** An answer other than 2xx, with the API's message (`message` of a Status, `error` of the other routes). */
export class ApiError extends Error {
  readonly status: number;
  readonly reason: string | undefined;
  readonly retryAfterSeconds: number | undefined;
  /** The field causes of a `Status` (a 422 `Invalid` names each field it refused). */
  readonly causes: FieldCause[];

  constructor(
    status: number,
    message: string,
    reason: string | undefined,
    retryAfterSeconds: number | undefined,
    causes: FieldCause[] = [],
  ) {
    super(message);
    this.status = status;
    this.reason = reason;
    this.retryAfterSeconds = retryAfterSeconds;
    this.causes = causes;
  }
}

/** Reads an error answer into an ApiError. */
export async function apiError(response: Response): Promise<ApiError> {
  let body: { message?: string; error?: string; reason?: string; details?: { causes?: FieldCause[] } } = {};
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
    Array.isArray(body.details?.causes) ? body.details.causes : [],
  );
}

/** The text of an error for the page: the API's message, or what went wrong reaching it. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export type UnauthorizedHandler = (reason: string) => void;

/** A request's body: JSON (`application/json` unless `contentType` names a patch type). */
export interface RequestBody {
  body: unknown;
  contentType?: string;
}

/** An answer's body with the server's `Warning` headers' texts (a write's `299 - "…"`). */
export interface Answer<T> {
  body: T;
  warnings: string[];
}

export interface Api {
  readonly baseUrl: string;
  get<T>(path: string): Promise<T>;
  post<T>(path: string, body?: unknown): Promise<T>;
  /** Any method, with a JSON body of the given type (a merge patch, DeleteOptions). */
  send<T>(method: string, path: string, request?: RequestBody): Promise<T>;
  /** As `send`, with the warnings the server gave about the write (a Rollout's withdrawn approvals, say). */
  write<T>(method: string, path: string, request?: RequestBody): Promise<Answer<T>>;
}

/** The API at `baseUrl`; `onUnauthorized` hears every 401 (the caller sends the user to sign in). */
export function createApi(baseUrl: string, onUnauthorized: UnauthorizedHandler): Api {
  const write = async <T>(method: string, path: string, request?: RequestBody): Promise<Answer<T>> => {
    const token = currentToken();
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      credentials: 'omit',
      headers: {
        accept: 'application/json',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(request ? { 'content-type': request.contentType ?? 'application/json' } : {}),
      },
      ...(request ? { body: JSON.stringify(request.body) } : {}),
    });
    // 204 (a revoked token) has no body to read.
    if (response.ok)
      return {
        body: (response.status === 204 ? undefined : await response.json()) as T,
        warnings: warningTexts(response.headers.get('warning')),
      };
    const error = await apiError(response);
    if (response.status === 401) onUnauthorized(error.message);
    throw error;
  };
  const send = async <T>(method: string, path: string, request?: RequestBody): Promise<T> =>
    (await write<T>(method, path, request)).body;
  return {
    baseUrl,
    get: (path) => send('GET', path),
    post: (path, body) => send('POST', path, body !== undefined ? { body } : undefined),
    send,
    write,
  };
}
