import { randomUUID } from 'node:crypto';
import { SignJWT, generateKeyPair, type CryptoKey } from 'jose';
import { TEST_NAMESPACE } from './identity-cluster.ts';

export interface ForgeryOptions {
  /** The `kid` to claim (e.g. the cluster's own); none by default. */
  kid?: string;
  /** The signing key; a fresh one nobody trusts by default (pass one to forge many tokens fast). */
  privateKey?: CryptoKey;
}

/** A well-formed RS256 ServiceAccount-shaped JWT for `issuer`, signed by a key nobody trusts; each one distinct (jti). */
export async function forgedJwt(issuer: string, options: ForgeryOptions = {}): Promise<string> {
  const privateKey = options.privateKey ?? (await generateKeyPair('RS256')).privateKey;
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({
    'kubernetes.io': { namespace: TEST_NAMESPACE, serviceaccount: { name: 'controller', uid: 'x' } },
  })
    .setProtectedHeader({ alg: 'RS256', ...(options.kid === undefined ? {} : { kid: options.kid }) })
    .setIssuer(issuer)
    .setSubject(`system:serviceaccount:${TEST_NAMESPACE}:controller`)
    .setIssuedAt(now)
    .setExpirationTime(now + 600)
    .setJti(randomUUID())
    .sign(privateKey);
}
