import type { AppContext } from '../../shared/server/app/app-context.ts';
import { issueAdminToken } from '../../shared/auth/admin-token.ts';
import { clientAddress } from '../../shared/auth/login-throttle.ts';
import { loginError, retryAfter as retryAfterHeader } from '../../shared/base/http/error-catalogue.ts';
import { jsonResponse } from '../../shared/base/http/api-request.ts';
import {
  LOGIN_ACCOUNT_FAILURES_ANNOTATION,
  LOGIN_FAILURE_STORE_ANNOTATION,
  LOGIN_OUTCOME_ANNOTATION,
  noteForAudit,
} from '../../shared/domain/audit/audit-annotations.ts';
import { functionModule, type FunctionHandlers } from '../../shared/server/runtime/function-definition.ts';
import { routeHandlers, type RouteHandlers } from '../../shared/server/runtime/typed-handlers.ts';

/** Cookie set on a successful login, for browser clients (the API itself reads bearer tokens only). */
export const TOKEN_COOKIE = 'platform_api_token';
/** bcrypt ignores bytes past 72; a longer password cannot be what the hash was made from. */
const MAX_PASSWORD_BYTES = 72;

/** The login function: its facts and its factory (shared/server/runtime/function-definition.ts, FunctionModule). */
/** The services of the app context the login function uses, and may use. */
const LOGIN_SERVICES = ['adminSettings', 'passwordVerifier', 'loginThrottle', 'config', 'logger', 'metrics'] as const;

export const loginFunction = functionModule({
  services: LOGIN_SERVICES,
  name: 'login',
  cluster: 'on-first-use',
  runHistory: false,
  maintainsRunHistory: false,
  readiness: [],
  create: (context) => createLoginFunction(context),
});

/** The login function: POST /api/v1alpha1/auth/login exchanges the admin password for an admin JWT. */
export function createLoginFunction(context: Pick<AppContext, (typeof LOGIN_SERVICES)[number]>): FunctionHandlers {
  const { adminSettings, passwordVerifier, loginThrottle, config, logger, metrics } = context;
  const secureCookie = config.apiBaseUrl.startsWith('https:');
  const budget = loginThrottle.budgets.accountMax;

  const login: RouteHandlers<'login'>['login'] = async (request) => {
    const outcome = (value: string) => noteForAudit(request, LOGIN_OUTCOME_ANNOTATION, value);
    const accountFailures = (failures: number | undefined) => {
      if (failures === undefined) return;
      noteForAudit(request, LOGIN_ACCOUNT_FAILURES_ANNOTATION, `${failures}/${budget}`);
      metrics.loginAccountFailures(failures);
    };
    outcome('malformed');
    const password = readPassword(request.headers.authorization);
    outcome('wrong-password');
    const settings = adminSettings.current();
    // Nothing is compared while the account is disabled, so nothing is counted either.
    if (!settings.enabled) {
      outcome('disabled');
      throw loginError('AdminAccountDisabled', 'the admin account is disabled');
    }
    const client = clientAddress(request.remoteAddress, request.headers['x-forwarded-for'], config.trustedProxyHops);
    // Counted as a failure before the comparison, so concurrent guesses cannot outrun the count.
    const attempt = await loginThrottle.admit(client);
    noteForAudit(request, LOGIN_FAILURE_STORE_ANNOTATION, attempt.store);
    if (!attempt.admitted) {
      accountFailures(attempt.accountFailures);
      throw throttled(attempt.refusedBy, attempt.retryAfterSeconds, outcome);
    }
    if (!settings.passwordHashUsable) outcome('unusable-hash');
    // An unusable hash ($2y$ or empty) fails like a wrong password; the start-up log says why.
    const matches = settings.passwordHashUsable
      ? await passwordVerifier.compare(password, settings.passwordHash)
      : false;
    if (matches === 'busy') {
      await loginThrottle.notCompared(attempt);
      accountFailures(attempt.accountFailures - 1);
      outcome('busy');
      throw loginError(
        'TooManyLoginsInProgress',
        'too many logins in progress; try again shortly',
        retryAfterHeader(1),
      );
    }
    if (!matches) {
      accountFailures(attempt.accountFailures);
      logger.warn('admin login failed', { client, accountFailures: `${attempt.accountFailures}/${budget}` });
      if (attempt.accountFailures >= budget) {
        metrics.loginAccountLockout();
        logger.warn(
          "admin account locked: its failed-login budget for the window is spent, so every client gets 429 until the window ends (docs/admin-account.md, 'Throttling')",
          { accountFailures: attempt.accountFailures, until: new Date(attempt.accountWindowEndsAt).toISOString() },
        );
      }
      throw loginError('InvalidPassword', 'invalid password');
    }
    await loginThrottle.succeeded(attempt);
    accountFailures(attempt.accountFailures - 1);
    outcome('success');
    // The route is open, but this request established the admin: its event names who it was.
    request.establishedPrincipal = { type: 'admin', name: 'admin' };
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

/** The 429 of a refused attempt: the account's budget spent (every client waits), or this client's. */
function throttled(refusedBy: 'account' | 'client', retryAfter: number, outcome: (value: string) => void) {
  if (refusedBy === 'account') {
    outcome('account-throttled');
    return loginError(
      'TooManyFailedLoginsForAccount',
      'too many failed logins for the admin account, from all clients together; try again later',
      retryAfterHeader(retryAfter),
    );
  }
  outcome('throttled');
  return loginError(
    'TooManyFailedLogins',
    'too many failed logins from this client; try again later',
    retryAfterHeader(retryAfter),
  );
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
