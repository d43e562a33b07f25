// "Sign in with <provider>" (issue 24, item 2): Authorization Code + PKCE as a public client, through
// oauth4webapi (no hand-written PKCE or token parsing). The ID token is the bearer token. The
// verifier, state and nonce wait in sessionStorage across the redirect to the provider and back.
import * as oauth from 'oauth4webapi';
import type { OidcSettings } from '../config.ts';

const PENDING_KEY = 'console.oidcPending';

interface PendingLogin {
  codeVerifier: string;
  state: string;
  nonce: string;
}

/** The console's root: where the provider sends the browser back (registered as the client's redirect URI). */
export function redirectUri(): string {
  return `${location.origin}/`;
}

/** An http issuer is accepted only as configured in the API (a local provider); oauth4webapi refuses it otherwise. */
function requestOptions(settings: OidcSettings) {
  return new URL(settings.issuerUrl).protocol === 'http:' ? { [oauth.allowInsecureRequests]: true } : {};
}

async function discover(settings: OidcSettings): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(settings.issuerUrl);
  return oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, requestOptions(settings)));
}

/** Sends the browser to the provider's authorization endpoint. */
export async function startOidcLogin(settings: OidcSettings): Promise<void> {
  const server = await discover(settings);
  if (!server.authorization_endpoint) throw new Error('the OpenID Provider has no authorization endpoint');
  const pending: PendingLogin = {
    codeVerifier: oauth.generateRandomCodeVerifier(),
    state: oauth.generateRandomState(),
    nonce: oauth.generateRandomNonce(),
  };
  sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
  const url = new URL(server.authorization_endpoint);
  url.search = new URLSearchParams({
    client_id: settings.clientId,
    redirect_uri: redirectUri(),
    response_type: 'code',
    scope: settings.scopes.join(' '),
    code_challenge: await oauth.calculatePKCECodeChallenge(pending.codeVerifier),
    code_challenge_method: 'S256',
    state: pending.state,
    nonce: pending.nonce,
  }).toString();
  location.assign(url.href);
}

/** Whether this page load is the provider's redirect back (a code or an error, and a login we started). */
export function isOidcCallback(): boolean {
  const query = new URLSearchParams(location.search);
  return (query.has('code') || query.has('error')) && sessionStorage.getItem(PENDING_KEY) !== null;
}

/** Redeems the code of the redirect back for the ID token. */
export async function completeOidcLogin(settings: OidcSettings): Promise<string> {
  const pending = JSON.parse(sessionStorage.getItem(PENDING_KEY) ?? 'null') as PendingLogin | null;
  sessionStorage.removeItem(PENDING_KEY);
  if (!pending) throw new Error('no sign-in was started from this tab');
  const server = await discover(settings);
  const client: oauth.Client = { client_id: settings.clientId };
  let parameters: URLSearchParams;
  try {
    parameters = oauth.validateAuthResponse(server, client, new URL(location.href), pending.state);
  } catch (error) {
    // The provider's own words (access_denied: the user refused) say more than "is an error".
    if (error instanceof oauth.AuthorizationResponseError)
      throw new Error(`${error.error}${error.error_description ? `: ${error.error_description}` : ''}`);
    throw error;
  }
  const response = await oauth.authorizationCodeGrantRequest(
    server,
    client,
    oauth.None(),
    parameters,
    redirectUri(),
    pending.codeVerifier,
    requestOptions(settings),
  );
  const result = await oauth.processAuthorizationCodeResponse(server, client, response, {
    expectedNonce: pending.nonce,
    requireIdToken: true,
  });
  if (!result.id_token) throw new Error('the OpenID Provider returned no ID token');
  return result.id_token;
}
