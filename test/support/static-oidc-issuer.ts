import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';

/** A minimal OpenID issuer: discovery and a JWKS, served under `pathPrefix`, and a signer for its tokens. */
export interface StaticOidcIssuer {
  /** The address it listens on (127.0.0.1). */
  url: string;
  /** The `iss` of its tokens and discovery (may be a public URL that is not `url`). */
  issuer: string;
  /** Paths requested so far, in order. */
  requests: string[];
  /** Signs an ID token with the current key (or the published key of `alg`): iss = issuer, exp one hour ahead unless given. */
  sign(claims: Record<string, unknown>, alg?: string): Promise<string>;
  /** Replaces the signing key; the JWKS then publishes only the new one. */
  rotateKey(): Promise<void>;
  stop(): Promise<void>;
  start(): Promise<void>;
}

interface SigningKey {
  privateKey: CryptoKey;
  jwk: JWK;
}

let keyCounter = 0;

async function newKey(alg = 'ES256'): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg);
  return { privateKey, jwk: { ...(await exportJWK(publicKey)), kid: `key-${++keyCounter}`, alg, use: 'sig' } };
}

/**
 * Starts the issuer on 127.0.0.1; `issuer` defaults to its own address plus `pathPrefix`. Its
 * current key is ES256; `extraAlgorithms` publishes one more key per algorithm, never rotated.
 */
export async function startStaticOidcIssuer(
  options: { issuer?: string; pathPrefix?: string; extraAlgorithms?: string[] } = {},
): Promise<StaticOidcIssuer & { close(): Promise<void> }> {
  const prefix = options.pathPrefix ?? '';
  let key = await newKey();
  const extraKeys = new Map<string, SigningKey>();
  for (const alg of options.extraAlgorithms ?? []) extraKeys.set(alg, await newKey(alg));
  const requests: string[] = [];
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?', 1)[0]!;
    requests.push(path);
    if (path === `${prefix}/.well-known/openid-configuration`) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          issuer,
          jwks_uri: `${issuer}/keys`,
          id_token_signing_alg_values_supported: ['ES256', ...extraKeys.keys()],
        }),
      );
    } else if (path === `${prefix}/keys`) {
      res
        .writeHead(200, { 'content-type': 'application/jwk-set+json' })
        .end(JSON.stringify({ keys: [key.jwk, ...[...extraKeys.values()].map((extra) => extra.jwk)] }));
    } else {
      res.writeHead(404).end();
    }
  };
  let server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  const issuer = options.issuer ?? `${url}${prefix}`;
  const stop = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return {
    url,
    issuer,
    requests,
    async sign(claims, alg) {
      const now = Math.floor(Date.now() / 1000);
      const signing = alg === undefined || alg === key.jwk.alg ? key : extraKeys.get(alg);
      if (signing === undefined) throw new Error(`the issuer publishes no ${alg} key`);
      return new SignJWT({ iat: now, exp: now + 3600, ...claims })
        .setProtectedHeader({ alg: signing.jwk.alg!, kid: signing.jwk.kid! })
        .setIssuer(issuer)
        .sign(signing.privateKey);
    },
    async rotateKey() {
      key = await newKey();
    },
    stop,
    async start() {
      server = createServer(handle);
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    },
    async close() {
      if (server.listening) await stop();
    },
  };
}
