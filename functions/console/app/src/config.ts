// What the console learns before anyone signs in (issue 24, item 1): the API's address from its own
// server's /config.json, then the sign-in options from the API's public configuration.

export interface OidcSettings {
  issuerUrl: string;
  clientId: string;
  scopes: string[];
}

export interface ConsoleConfig {
  apiBaseUrl: string;
  adminAccountEnabled: boolean;
  oidc: OidcSettings | undefined;
}

export async function loadConsoleConfig(): Promise<ConsoleConfig> {
  const served = (await (await fetch('./config.json', { cache: 'no-cache' })).json()) as { apiBaseUrl: string };
  const apiBaseUrl = served.apiBaseUrl.replace(/\/$/, '');
  const response = await fetch(`${apiBaseUrl}/api/v1alpha1/system/public-config`, { credentials: 'omit' });
  if (!response.ok) throw new Error(`the API answered ${response.status} for its public configuration`);
  const publicConfig = (await response.json()) as {
    adminAccountEnabled: boolean;
    oidcConfig?: { issuerUrl: string; clientId: string; scopes: string[] };
  };
  const oidc = publicConfig.oidcConfig;
  return {
    apiBaseUrl,
    adminAccountEnabled: publicConfig.adminAccountEnabled,
    oidc: oidc ? { issuerUrl: oidc.issuerUrl, clientId: oidc.clientId, scopes: oidc.scopes } : undefined,
  };
}
