import type { AppContext } from '../../shared/app/app-context.ts';
import { jsonResponse } from '../../shared/http/api-request.ts';
import { buildOpenApiDocument } from '../../shared/openapi/openapi-document.ts';
import { renderReferencePage } from '../../shared/openapi/reference-page.ts';
import type { FunctionDefinition } from '../../shared/runtime/function-definition.ts';
import { routeHandlers } from '../../shared/runtime/typed-handlers.ts';
import { publicOidcConfig } from '../../shared/config/identity-config.ts';

/** What a client needs before it logs in. `oidcConfig` is omitted when OIDC is off. */
export interface PublicConfig {
  adminAccountEnabled: boolean;
  oidcConfig?: { issuerUrl: string; clientId: string; cliClientId: string; scopes: string[] };
}

/** The public-config function: the public configuration, the OpenAPI document and the reference page. */
export function createPublicConfigFunction(context: AppContext, oidcConfig: () => PublicConfig['oidcConfig'] = () => publicOidcConfig(context.identity.oidc)): FunctionDefinition {
  const document = buildOpenApiDocument(context.routes, context.config.apiBaseUrl);
  const documentJson = JSON.stringify(document);
  const page = renderReferencePage(document);
  return {
    name: 'public-config',
    handlers: routeHandlers<'public-config'>({
      getPublicConfig: () => {
        const oidc = oidcConfig();
        const body: PublicConfig = { adminAccountEnabled: context.adminSettings.current().enabled, ...(oidc ? { oidcConfig: oidc } : {}) };
        return jsonResponse(200, body);
      },
      getOpenApiDocument: () => ({ status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: documentJson }),
      getApiReference: () => ({
        status: 200,
        headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'" },
        body: page,
      }),
    }),
  };
}
