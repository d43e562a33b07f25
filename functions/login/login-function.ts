import type { AppContext } from '../../shared/app/app-context.ts';
import { issueAdminToken } from '../../shared/auth/admin-token.ts';
import { clientAddress } from '../../shared/auth/login-throttle.ts';
import { loginError, retryAfter as retryAfterHeader } from '../../shared/http/error-catalogue.ts';
import { jsonResponse } from '../../shared/http/api-request.ts';
import { LOGIN_OUTCOME_ANNOTATION, noteForAudit } from '../../shared/audit/audit-annotations.ts';
import type { FunctionModule, FunctionHandlers } from '../../shared/runtime/function-definition.ts';
import { routeHandlers, type RouteHandlers } from '../../shared/runtime/typed-handlers.ts';

/** Cookie set on a successful login, for browser clients (the API itself reads bearer tokens only). */
export const TOKEN_COOKIE = 'platform_api_token';
/** bcrypt ignores bytes past 72; a longer password cannot be what the hash was made from. */
const MAX_PASSWORD_BYTES = 72;

/** The login function: its facts and its factory (shared/runtime/function-definition.ts, FunctionModule). */
export const loginFunction: FunctionModule = {
  name: 'login',
  cluster: 'on-first-use',
  runHistory: false,
  maintainsRunHistory: false,
  readiness: [],
  create: (context) => createLoginFunction(context),
};

/** The login function: POST /api/v1alpha1/auth/login exchanges the admin password for an admin JWT. */
export function createLoginFunction(context: AppContext): FunctionHandlers {
  const { adminSettings, passwordVerifier, loginThrottle, config, logger } = context;
  const secureCookie = config.apiBaseUrl.startsWith('https:');

  const login: RouteHandlers<'login'>['login'] = async (request) => {
    const outcome = (value: string) => noteForAudit(request, LOGIN_OUTCOME_ANNOTATION, value);
    outcome('malformed');
    const password = readPassword(request.headers.authorization);
    outcome('wrong-password');
    const client = clientAddress(request.remoteAddress, request.headers['x-forwarded-for'], config.trustedProxyHops);
    const retryAfter = loginThrottle.retryAfterSeconds(client);
    if (retryAfter > 0) {
      outcome('throttled');
      throw loginError(
        'TooManyFailedLogins',
        'too many failed logins from this client; try again later',
        retryAfterHeader(retryAfter),
      );
    }
    const settings = adminSettings.current();
    if (!settings.enabled) {
      outcome('disabled');
      throw loginError('AdminAccountDisabled', 'the admin account is disabled');
    }
    if (!settings.passwordHashUsable) outcome('unusable-hash');
    // An unusable hash ($2y$ or empty) fails like a wrong password; the start-up log says why.
    const matches = settings.passwordHashUsable
      ? await passwordVerifier.compare(password, settings.passwordHash)
      : false;
    if (matches === 'busy') {
      outcome('busy');
      throw loginError(
        'TooManyLoginsInProgress',
        'too many logins in progress; try again shortly',
        retryAfterHeader(1),
      );
    }
    if (!matches) {
      loginThrottle.recordFailure(client);
      logger.warn('admin login failed', { client });
      throw loginError('InvalidPassword', 'invalid password');
    }
    loginThrottle.recordSuccess(client);
    outcome('success');
    const idToken = await issueAdminToken(settings, config.apiBaseUrl);
    logger.info('admin login succeeded', { client });
    const cookie = [
      `${TOKEN_COOKIE}=${idToken}`,
      'Path=/',
      `Max-Age=${settings.tokenTtlSeconds}`,
      'HttpOnly',
      'SameSite=Strict',
      ...(secureCookie ? ['Secure'] : []),
    ].join('; ');
    return jsonResponse(200, { idToken }, { 'set-cookie': cookie });
  };

  return { handlers: routeHandlers<'login'>({ login }) };
}

function readPassword(header: string | undefined): string {
  if (header === undefined)
    throw loginError('MissingPassword', 'the password goes in the header "Authorization: Bearer <password>"');
  const match = /^Bearer (.+)$/is.exec(header);
  if (!match) throw loginError('MalformedAuthorizationHeader', 'the Authorization header must be "Bearer <password>"');
  const password = match[1]!;
  if (Buffer.byteLength(password) > MAX_PASSWORD_BYTES) throw loginError('InvalidPassword', 'invalid password');
  return password;
}
