import bcrypt from 'bcryptjs';
import { SignJWT, base64url } from 'jose';

export const ADMIN_PASSWORD = 'correct horse battery staple';
export const SIGNING_KEY = `${'k'.repeat(32)}signing-key-for-tests-0123456789`;
export const OTHER_SIGNING_KEY = 'o'.repeat(64);

/** A `$2a$` bcrypt hash (low cost keeps tests fast; cost does not change behaviour). */
export function adminHash(password = ADMIN_PASSWORD, prefix: '$2a$' | '$2b$' | '$2y$' = '$2a$'): string {
  return bcrypt.hashSync(password, 4).replace(/^\$2[aby]\$/, prefix);
}

/** Production-mode admin settings as environment variables. */
export function adminEnv(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    NODE_ENV: 'production',
    ADMIN_ACCOUNT_ENABLED: 'true',
    ADMIN_ACCOUNT_PASSWORD_HASH: adminHash(),
    ADMIN_ACCOUNT_TOKEN_SIGNING_KEY: SIGNING_KEY,
    ADMIN_ACCOUNT_TOKEN_TTL: '1h',
    ...overrides,
  };
}

/** Signs arbitrary claims with an HMAC algorithm, for forging tokens in tests. */
export function signToken(
  claims: Record<string, unknown>,
  options: { key?: string; alg?: 'HS256' | 'HS384' | 'HS512' } = {},
): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: options.alg ?? 'HS256', typ: 'JWT' })
    .sign(new TextEncoder().encode(options.key ?? SIGNING_KEY));
}

/** An unsigned token (`alg: none`). */
export function unsignedToken(claims: Record<string, unknown>): string {
  const encode = (value: unknown) => base64url.encode(JSON.stringify(value));
  return `${encode({ alg: 'none', typ: 'JWT' })}.${encode(claims)}.`;
}

/** Valid admin claims for a given issuer, issued now with the given TTL in seconds. */
export function adminClaims(
  issuer: string,
  ttlSeconds = 3600,
  now = Math.floor(Date.now() / 1000),
): Record<string, unknown> {
  return { iss: issuer, sub: 'admin', iat: now, exp: now + ttlSeconds };
}
