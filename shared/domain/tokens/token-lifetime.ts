import { parseGoDuration } from '../../base/config/go-duration.ts';
import { apiError } from '../../base/http/error-catalogue.ts';
import { TOKEN_LIFETIME_MAX, TOKEN_LIFETIME_MIN } from '../../contract/routes/token-routes.ts';

const MIN_SECONDS = parseGoDuration(TOKEN_LIFETIME_MIN)! / 1000;
const MAX_SECONDS = parseGoDuration(TOKEN_LIFETIME_MAX)! / 1000;

/** A token's lifetime in whole seconds (TokenRequest's `expirationSeconds`); 400 when it is no duration or out of range. */
export function tokenLifetimeSeconds(lifetime: string): number {
  const ms = parseGoDuration(lifetime);
  if (ms === null) throw apiError('InvalidProjectToken', `lifetime "${lifetime}" is not a Go duration such as 720h`);
  const seconds = Math.floor(ms / 1000);
  if (seconds < MIN_SECONDS || seconds > MAX_SECONDS)
    throw apiError(
      'InvalidProjectToken',
      `lifetime "${lifetime}" is outside ${TOKEN_LIFETIME_MIN} to ${TOKEN_LIFETIME_MAX}, the range a Project token may have`,
    );
  return seconds;
}
