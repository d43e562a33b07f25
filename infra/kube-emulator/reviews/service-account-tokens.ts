// Bound ServiceAccount tokens as kube-apiserver issues them through TokenRequest: RS256 JWTs whose public key is
// published at /openid/v1/jwks, checked on the way back in against the ServiceAccount they were issued for.
import { randomUUID } from 'node:crypto';
import { SignJWT, calculateJwkThumbprint, exportJWK, generateKeyPair, jwtVerify } from 'jose';
import type { CryptoKey, JWK } from 'jose';
import type { UserInfo } from './user-info.ts';
import { serviceAccountUser } from './user-info.ts';

/** The ServiceAccount a token is issued for. */
export interface ServiceAccountRef {
  namespace: string;
  name: string;
  uid: string;
}

/** The outcome of checking a token: the user and the audiences it is valid for, or why not. */
export type TokenCheck = { user: UserInfo; audiences: string[] } | { error: string };

interface KubernetesClaim {
  namespace?: string;
  serviceaccount?: { name?: string; uid?: string };
}

/** Signs and verifies ServiceAccount tokens with one key pair generated at start. */
export class ServiceAccountTokens {
  readonly issuer: string;
  readonly #privateKey: CryptoKey;
  readonly #publicKey: CryptoKey;
  readonly #publicJwk: JWK;

  private constructor(issuer: string, privateKey: CryptoKey, publicKey: CryptoKey, publicJwk: JWK) {
    this.issuer = issuer;
    this.#privateKey = privateKey;
    this.#publicKey = publicKey;
    this.#publicJwk = publicJwk;
  }

  /** Generates the signing key for an issuer. */
  static async create(issuer: string): Promise<ServiceAccountTokens> {
    const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
    const jwk = await exportJWK(publicKey);
    const kid = await calculateJwkThumbprint(jwk);
    return new ServiceAccountTokens(issuer, privateKey, publicKey, { ...jwk, kid, use: 'sig', alg: 'RS256' });
  }

  /** The key set served at /openid/v1/jwks. */
  get jwks(): { keys: JWK[] } {
    return { keys: [this.#publicJwk] };
  }

  /** Issues a token for a ServiceAccount, valid for the audiences and lifetime given. */
  async mint(
    account: ServiceAccountRef,
    audiences: string[],
    expirationSeconds: number,
  ): Promise<{ token: string; expiresAt: Date }> {
    const issuedAt = Math.floor(Date.now() / 1000);
    const expiresAt = issuedAt + expirationSeconds;
    const token = await new SignJWT({
      'kubernetes.io': { namespace: account.namespace, serviceaccount: { name: account.name, uid: account.uid } },
    })
      .setProtectedHeader({ alg: 'RS256', kid: this.#publicJwk.kid! })
      .setIssuer(this.issuer)
      .setSubject(`system:serviceaccount:${account.namespace}:${account.name}`)
      .setAudience(audiences)
      .setIssuedAt(issuedAt)
      .setNotBefore(issuedAt)
      .setExpirationTime(expiresAt)
      .setJti(randomUUID())
      .sign(this.#privateKey);
    return { token, expiresAt: new Date(expiresAt * 1000) };
  }

  /**
   * Checks signature, issuer, lifetime, audiences (at least one of `audiences` must be in `aud`) and that the
   * ServiceAccount still exists with the same uid (`currentUid` answers undefined when it is gone).
   */
  async verify(
    token: string,
    audiences: string[],
    currentUid: (namespace: string, name: string) => string | undefined,
  ): Promise<TokenCheck> {
    let payload;
    try {
      ({ payload } = await jwtVerify(token, this.#publicKey, { issuer: this.issuer, algorithms: ['RS256'] }));
    } catch (error) {
      return { error: `[invalid bearer token, ${(error as Error).message}]` };
    }
    const tokenAudiences = typeof payload.aud === 'string' ? [payload.aud] : (payload.aud ?? []);
    const valid = audiences.filter((audience) => tokenAudiences.includes(audience));
    if (valid.length === 0) {
      return {
        error: `[invalid bearer token, token audiences ${JSON.stringify(tokenAudiences)} is invalid for the target audiences ${JSON.stringify(audiences)}]`,
      };
    }
    const claim = (payload['kubernetes.io'] ?? {}) as KubernetesClaim;
    const namespace = claim.namespace ?? '';
    const name = claim.serviceaccount?.name ?? '';
    const uid = currentUid(namespace, name);
    if (uid === undefined || uid !== claim.serviceaccount?.uid) {
      return { error: `[invalid bearer token, service account ${namespace}/${name} has been deleted]` };
    }
    const user = serviceAccountUser(namespace, name, uid);
    return {
      user: { ...user, extra: { 'authentication.kubernetes.io/credential-id': [`JTI=${payload.jti ?? ''}`] } },
      audiences: valid,
    };
  }
}
