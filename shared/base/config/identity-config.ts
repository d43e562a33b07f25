import { ConfigError } from './config-error.ts';
import { parseHttpUrlSetting, settingReader, type SettingReader } from './setting-values.ts';
import type { Environment } from './environment.ts';
import type { ServerConfig } from './server-config.ts';

/** The external identity provider, when OIDC is switched on (`OIDC_ISSUER_URL` set). */
export interface OidcSettings {
  /** Exactly the `iss` of the provider's ID tokens. */
  issuerUrl: string;
  /** The web UI's client ID; ID tokens must carry it or `cliClientId` in `aud`. */
  clientId: string;
  /** The CLI's client ID (defaults to `clientId`). */
  cliClientId: string;
  /** Scopes beyond `openid`, `profile` and `email` that clients should request. */
  additionalScopes: string[];
  /** The claim whose value names the user (recorded on runs). */
  usernameClaim: string;
  /** Put before the username claim's value to name the user (`OIDC_USERNAME_PREFIX`, `oidc:`), as kube-apiserver's `--oidc-username-prefix`. */
  usernamePrefix: string;
  /** Put before each of the `groups` claim's values (`OIDC_GROUPS_PREFIX`, `oidc:`), as kube-apiserver's `--oidc-groups-prefix`. */
  groupsPrefix: string;
  /**
   * Rewrites a public provider URL (discovery, JWKS) to the address the server fetches it from:
   * the in-cluster bridge address when the issuer is `<API_BASE_URL>/bridge`, else unchanged.
   */
  fetchUrlFor(publicUrl: string): string;
}

/** Identity settings fixed for the life of the process. */
export interface IdentityConfig {
  /** Undefined when OIDC is off. */
  oidc: OidcSettings | undefined;
  /** `SERVICE_ACCOUNT_ISSUERS`; undefined means "ask the cluster, else the default". */
  serviceAccountIssuers: string[] | undefined;
}

/** The scopes every client requests; `OIDC_ADDITIONAL_SCOPES` come after them. */
const BASE_OIDC_SCOPES = ['openid', 'profile', 'email'];
const OIDC_DEPENDENT_VARIABLES = [
  'OIDC_CLIENT_ID',
  'OIDC_CLI_CLIENT_ID',
  'OIDC_ADDITIONAL_SCOPES',
  'OIDC_USERNAME_CLAIM',
  'OIDC_USERNAME_PREFIX',
  'OIDC_GROUPS_PREFIX',
] as const;
// RFC 6749 section 3.3 scope-token.
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;
const CLAIM_NAME = /^[A-Za-z0-9_.:/-]+$/;
/** What an OIDC user and its groups are named with unless configured otherwise (docs/authentication.md). */
const DEFAULT_OIDC_PREFIX = 'oidc:';
const PREFIX_MAX_LENGTH = 64;
/** The names Kubernetes keeps for itself (`system:serviceaccount:…`, `system:masters`, `system:authenticated`). */
const KUBERNETES_RESERVED = 'system:';

/** Reads the OIDC and ServiceAccount issuer settings; throws ConfigError naming the bad variable. */
export function loadIdentityConfig(
  env: Environment,
  config: Pick<ServerConfig, 'apiBaseUrl' | 'bridgeUpstreamUrl'>,
): IdentityConfig {
  const setting = settingReader(env);
  return { oidc: loadOidcSettings(setting, config), serviceAccountIssuers: loadServiceAccountIssuers(setting) };
}

function loadOidcSettings(
  setting: SettingReader,
  config: Pick<ServerConfig, 'apiBaseUrl' | 'bridgeUpstreamUrl'>,
): OidcSettings | undefined {
  const issuerUrl = setting.text('OIDC_ISSUER_URL');
  if (issuerUrl === undefined) {
    const stray = OIDC_DEPENDENT_VARIABLES.find((name) => setting.text(name) !== undefined);
    if (stray)
      throw new ConfigError(
        stray,
        'is set but OIDC_ISSUER_URL is not; set OIDC_ISSUER_URL to switch OIDC on, or unset it',
      );
    return undefined;
  }
  const issuer = parseHttpUrlSetting('OIDC_ISSUER_URL', issuerUrl);
  if (issuer.search !== '' || issuer.hash !== '')
    throw new ConfigError('OIDC_ISSUER_URL', `"${issuerUrl}" must not have a query or fragment`);
  const clientId = setting.text('OIDC_CLIENT_ID');
  if (clientId === undefined) throw new ConfigError('OIDC_CLIENT_ID', 'is required when OIDC_ISSUER_URL is set');
  const additionalScopes = (setting.text('OIDC_ADDITIONAL_SCOPES') ?? '').split(/[\s,]+/).filter(Boolean);
  const badScope = additionalScopes.find((scope) => !SCOPE_TOKEN.test(scope));
  if (badScope !== undefined)
    throw new ConfigError('OIDC_ADDITIONAL_SCOPES', `"${badScope}" is not a valid OAuth scope`);
  const usernameClaim = setting.text('OIDC_USERNAME_CLAIM') ?? 'sub';
  if (!CLAIM_NAME.test(usernameClaim))
    throw new ConfigError('OIDC_USERNAME_CLAIM', `"${usernameClaim}" is not a claim name`);
  return {
    issuerUrl,
    clientId,
    cliClientId: setting.text('OIDC_CLI_CLIENT_ID') ?? clientId,
    additionalScopes: additionalScopes.filter((scope) => !BASE_OIDC_SCOPES.includes(scope)),
    usernameClaim,
    usernamePrefix: loadPrefix(setting, 'OIDC_USERNAME_PREFIX', 'username'),
    groupsPrefix: loadPrefix(setting, 'OIDC_GROUPS_PREFIX', 'group'),
    fetchUrlFor: bridgeRewrite(issuerUrl, config),
  };
}

/**
 * A prefix of OIDC names. It must keep every prefixed name apart from the other principals: no user
 * or group can come out as `admin` (the admin account's name, for a username) or under Kubernetes'
 * `system:` (ServiceAccounts, built-in groups); so there is no empty prefix either.
 */
function loadPrefix(setting: SettingReader, variable: string, names: 'username' | 'group'): string {
  const prefix = setting.text(variable) ?? DEFAULT_OIDC_PREFIX;
  if (prefix.length > PREFIX_MAX_LENGTH)
    throw new ConfigError(variable, `must be at most ${PREFIX_MAX_LENGTH} characters`);
  if (/[\s\p{Cc}]/u.test(prefix))
    throw new ConfigError(variable, `${JSON.stringify(prefix)} contains white space or control characters`);
  if (prefix.startsWith(KUBERNETES_RESERVED) || KUBERNETES_RESERVED.startsWith(prefix))
    throw new ConfigError(
      variable,
      `${JSON.stringify(prefix)} could make a name start with "${KUBERNETES_RESERVED}", which is reserved for Kubernetes`,
    );
  if (names === 'username' && 'admin'.startsWith(prefix))
    throw new ConfigError(variable, `${JSON.stringify(prefix)} could make a username read as the admin account`);
  return prefix;
}

// When the bridge is the issuer, its public URL goes through the gateway (and maybe through
// an ingress the pod cannot reach); the keys are fetched from the bridge's in-cluster address
// instead. The proxy keeps the path, so only the origin changes.
function bridgeRewrite(
  issuerUrl: string,
  config: Pick<ServerConfig, 'apiBaseUrl' | 'bridgeUpstreamUrl'>,
): (publicUrl: string) => string {
  const bridgePrefix = `${config.apiBaseUrl}/bridge`;
  if (issuerUrl !== bridgePrefix && !issuerUrl.startsWith(`${bridgePrefix}/`)) return (publicUrl) => publicUrl;
  if (config.bridgeUpstreamUrl === undefined) {
    throw new ConfigError(
      'OIDC_ISSUER_URL',
      `"${issuerUrl}" is the identity bridge, but BRIDGE_UPSTREAM_URL is not set, so nothing answers under /bridge/`,
    );
  }
  const upstreamOrigin = new URL(config.bridgeUpstreamUrl).origin;
  return (publicUrl) =>
    publicUrl.startsWith(`${bridgePrefix}/`) ? upstreamOrigin + publicUrl.slice(config.apiBaseUrl.length) : publicUrl;
}

function loadServiceAccountIssuers(setting: SettingReader): string[] | undefined {
  if (setting.text('SERVICE_ACCOUNT_ISSUERS') === undefined) return undefined;
  const issuers = setting.list('SERVICE_ACCOUNT_ISSUERS');
  if (issuers.length === 0)
    throw new ConfigError(
      'SERVICE_ACCOUNT_ISSUERS',
      'lists no issuer; unset it to use the issuer the cluster publishes',
    );
  const bad = issuers.find((issuer) => /\s/.test(issuer));
  if (bad !== undefined)
    throw new ConfigError('SERVICE_ACCOUNT_ISSUERS', `"${bad}" contains whitespace; separate issuers with commas`);
  return issuers;
}

/** What a client needs to log in with OIDC (the public config), or undefined when OIDC is off. */
export function publicOidcConfig(
  oidc: OidcSettings | undefined,
): { issuerUrl: string; clientId: string; cliClientId: string; scopes: string[] } | undefined {
  if (oidc === undefined) return undefined;
  return {
    issuerUrl: oidc.issuerUrl,
    clientId: oidc.clientId,
    cliClientId: oidc.cliClientId,
    scopes: [...BASE_OIDC_SCOPES, ...oidc.additionalScopes],
  };
}
