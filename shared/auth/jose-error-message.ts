import { errors as joseErrors } from 'jose';

/** Why jose refused a token, in words safe to show the client (never the token itself). */
export function describeJoseError(error: unknown): string {
  if (error instanceof joseErrors.JWTExpired) return 'token has expired';
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return 'token signature is invalid';
  if (error instanceof joseErrors.JOSEAlgNotAllowed) return 'token algorithm is not allowed';
  if (error instanceof joseErrors.JWTClaimValidationFailed) return `token claim "${error.claim}" is invalid`;
  if (error instanceof joseErrors.JWKSNoMatchingKey) return 'no key of the issuer matches the token';
  return 'token is malformed';
}
