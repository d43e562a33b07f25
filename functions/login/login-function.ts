import type { AppContext } from '../../shared/app/app-context.ts';
import { issueAdminToken } from '../../shared/auth/admin-token.ts';
import { clientAddress } from '../../shared/auth/login-throttle.ts';
import { ApiError, badRequest, forbidden } from '../../shared/http/api-error.ts';
import { jsonResponse } from '../../shared/http/api-request.ts';
import type { FunctionDefinition } from '../../shared/runtime/function-definition.ts';
import { routeHandlers, type RouteHandlers } from '../../shared/runtime/typed-handlers.ts';

/** Cookie set on a successful login, for browser clients (the API itself reads bearer tokens only). */
export const TOKEN_COOKIE = 'platform_api_token';
/** bcrypt ignores bytes past 72; a longer password cannot be what the hash was made from. */
const MAX_PASSWORD_BYTES = 72;

/** The login function: POST /api/v1alpha1/auth/login exchanges the admin password for an admin JWT. */
export function createLoginFunction(context: AppContext): FunctionDefinition {
  const { adminSettings, passwordVerifier, loginThrottle, config, logger } = context;
  const secureCookie = config.apiBaseUrl.startsWith('https:');

  const login: RouteHandlers<'login'>['login'] = async (request) => {
    const password = readPassword(request.headers.authorization);
    const client = clientAddress(request.remoteAddress, request.headers['x-forwarded-for'], config.trustedProxyHops);
    const retryAfter = loginThrottle.retryAfterSeconds(client);
    if (retryAfter > 0) {
      throw new ApiError(429, 'TooManyFailedLogins', 'too many failed logins from this client; try again later', { 'retry-after': String(retryAfter) });
    }
    const settings = adminSettings.current();
    if (!settings.enabled) throw forbidden('the admin account is disabled', 'AdminAccountDisabled');
    // An unusable hash ($2y$ or empty) fails like a wrong password; the start-up log says why.
    const matches = settings.passwordHashUsable ? await passwordVerifier.compare(password, settings.passwordHash) : false;
    if (matches === 'busy') {
      throw new ApiError(429, 'TooManyLoginsInProgress', 'too many logins in progress; try again shortly', { 'retry-after': '1' });
    }
    if (!matches) {
      loginThrottle.recordFailure(client);
      logger.warn('admin login failed', { client });
      throw forbidden('invalid password', 'InvalidPassword');
    }
    loginThrottle.recordSuccess(client);
    const idToken = await issueAdminToken(settings, config.apiBaseUrl);
    logger.info('admin login succeeded', { client });
    const cookie = [`${TOKEN_COOKIE}=${idToken}`, 'Path=/', `Max-Age=${settings.tokenTtlSeconds}`, 'HttpOnly', 'SameSite=Strict', ...(secureCookie ? ['Secure'] : [])].join('; ');
    return jsonResponse(200, { idToken }, { 'set-cookie': cookie });
  };

  return { name: 'login', handlers: routeHandlers<'login'>({ login }) };
}

function readPassword(header: string | undefined): string {
  if (header === undefined) throw badRequest('the password goes in the header "Authorization: Bearer <password>"', 'MissingPassword');
  const match = /^Bearer (.+)$/is.exec(header);
  if (!match) throw badRequest('the Authorization header must be "Bearer <password>"', 'MalformedAuthorizationHeader');
  const password = match[1]!;
  if (Buffer.byteLength(password) > MAX_PASSWORD_BYTES) throw forbidden('invalid password', 'InvalidPassword');
  return password;
}
