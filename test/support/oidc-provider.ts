import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';

/** A user of the test identity provider; the claims go into the ID token. */
export interface TestUser {
  sub: string;
  email: string;
  groups: string[];
}

/** The clients registered with the test provider. */
export const OIDC_CLIENTS = {
  /** The web UI: the API's OIDC_CLIENT_ID. */
  web: 'platform-web',
  /** The CLI: the API's OIDC_CLI_CLIENT_ID. */
  cli: 'platform-cli',
  /** Some other application of the same provider: its tokens are not for the API. */
  other: 'other-app',
} as const;

const REDIRECT_URI = 'http://127.0.0.1/callback';

/** A real OpenID Provider (`oidc-provider`) on 127.0.0.1. */
export interface TestOidcProvider {
  issuer: string;
  /** Logs the user in through Authorization Code + PKCE and returns the ID token. */
  login(sub: string, clientId?: string): Promise<string>;
  /** Lifetime of ID tokens issued from now on (default one hour). */
  idTokenTtlSeconds: number;
  /** Stops answering (the provider goes down); `start` brings it back on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
}

/**
 * Starts an OpenID Provider whose only accounts are `users`, with a `groups` scope and claim.
 * `options.redirectUris` registers more redirect URIs for every client (a browser app such as the console).
 */
export async function startOidcProvider(
  users: TestUser[],
  options: { redirectUris?: string[] } = {},
): Promise<TestOidcProvider & { close(): Promise<void> }> {
  let listener: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.writeHead(503).end();
  let server = createServer((req, res) => listener(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}`;
  const accounts = new Map(users.map((user) => [user.sub, user]));
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const provider = new Provider(issuer, {
    clients: Object.values(OIDC_CLIENTS).map((clientId) => ({
      client_id: clientId,
      token_endpoint_auth_method: 'none',
      redirect_uris: [REDIRECT_URI, ...(options.redirectUris ?? [])],
      grant_types: ['authorization_code'],
      response_types: ['code'],
    })),
    jwks: { keys: [{ ...(await exportJWK(privateKey)), kid: 'test-key-1', use: 'sig', alg: 'RS256' }] },
    cookies: { keys: [randomBytes(16).toString('hex')] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
    // Scope-requested claims go into the ID token itself, which is what the API verifies.
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    ttl: { IdToken: () => running.idTokenTtlSeconds, AccessToken: 3600, Grant: 3600, Interaction: 600, Session: 3600 },
    findAccount: (_ctx, id) => {
      const user = accounts.get(id);
      if (!user) return undefined;
      return {
        accountId: id,
        claims: () => ({ sub: user.sub, email: user.email, email_verified: true, name: user.sub, groups: user.groups }),
      };
    },
  });
  listener = provider.callback();

  const running: TestOidcProvider & { close(): Promise<void> } = {
    issuer,
    idTokenTtlSeconds: 3600,
    login: (sub: string, clientId: string = OIDC_CLIENTS.web) => authorizationCodeWithPkce(issuer, clientId, sub),
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    async start() {
      server = createServer((req, res) => listener(req, res));
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    },
    async close() {
      if (server.listening) await running.stop();
    },
  };
  return running;
}

/**
 * What a browser and a public client do: /auth with a PKCE challenge, the login form, the
 * consent form, the redirect with the code, then the code and verifier at the token endpoint.
 */
async function authorizationCodeWithPkce(issuer: string, clientId: string, sub: string): Promise<string> {
  const discovery = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as {
    authorization_endpoint: string;
    token_endpoint: string;
  };
  const verifier = randomBytes(32).toString('base64url');
  const state = randomBytes(8).toString('hex');
  const browser = new CookieBrowser();
  const authorize = new URL(discovery.authorization_endpoint);
  authorize.search = new URLSearchParams({
    client_id: clientId,
    response_type: 'code',
    redirect_uri: REDIRECT_URI,
    scope: 'openid email profile groups',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    state,
    nonce: randomBytes(8).toString('hex'),
  }).toString();
  let response = await browser.request(authorize.href);
  for (let step = 0; step < 12; step++) {
    const location = response.headers.get('location');
    if (location !== null) {
      const next = new URL(location, issuer);
      if (next.href.startsWith(REDIRECT_URI))
        return redeemCode(discovery.token_endpoint, clientId, next, state, verifier);
      response = await browser.request(next.href);
      continue;
    }
    const page = await response.text();
    if (response.status !== 200) throw new Error(`provider answered ${response.status}: ${page.slice(0, 300)}`);
    const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
    const prompt = /name="prompt" value="([a-z]+)"/.exec(page)?.[1];
    if (!action || !prompt) throw new Error(`unexpected provider page: ${page.slice(0, 300)}`);
    const form: Record<string, string> = prompt === 'login' ? { prompt, login: sub, password: 'any' } : { prompt };
    response = await browser.request(new URL(decodeEntities(action), issuer).href, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    });
  }
  throw new Error('the authorization flow did not reach the redirect URI');
}

async function redeemCode(
  tokenEndpoint: string,
  clientId: string,
  callback: URL,
  state: string,
  verifier: string,
): Promise<string> {
  const error = callback.searchParams.get('error');
  if (error) throw new Error(`authorization failed: ${error} ${callback.searchParams.get('error_description') ?? ''}`);
  if (callback.searchParams.get('state') !== state) throw new Error('state mismatch');
  const response = await fetch(tokenEndpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: callback.searchParams.get('code') ?? '',
      redirect_uri: REDIRECT_URI,
      client_id: clientId,
      code_verifier: verifier,
    }).toString(),
  });
  const body = (await response.json()) as { id_token?: string; error?: string };
  if (!body.id_token) throw new Error(`token endpoint answered ${response.status}: ${body.error}`);
  return body.id_token;
}

/** fetch with a cookie jar and manual redirects, the part of a browser the flow needs. */
class CookieBrowser {
  readonly #cookies = new Map<string, string>();

  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const cookie = [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), ...(cookie ? { cookie } : {}) },
    });
    for (const line of response.headers.getSetCookie()) {
      const pair = line.split(';', 1)[0]!;
      const split = pair.indexOf('=');
      const name = pair.slice(0, split);
      const value = pair.slice(split + 1);
      if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(line)) this.#cookies.delete(name);
      else this.#cookies.set(name, value);
    }
    return response;
  }
}

function decodeEntities(text: string): string {
  return text.replaceAll('&amp;', '&').replaceAll('&#x2F;', '/').replaceAll('&#47;', '/').replaceAll('&quot;', '"');
}
