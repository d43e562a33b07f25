import type { AppContext } from '../../shared/app/app-context.ts';
import { jsonResponse } from '../../shared/http/api-request.ts';
import { buildOpenApiDocument } from '../../shared/openapi/openapi-document.ts';
import { renderReferencePage } from '../../shared/openapi/reference-page.ts';
import type { FunctionDefinition } from '../../shared/runtime/function-definition.ts';
import { publicOidcConfig } from '../../shared/config/identity-config.ts';
import { platformKindDescriptions } from '../../shared/resources/platform-kind-descriptions.ts';

/** What a client needs before it logs in. `oidcConfig` is omitted when OIDC is off. */
export interface PublicConfig {
  adminAccountEnabled: boolean;
  oidcConfig?: { issuerUrl: string; clientId: string; cliClientId: string; scopes: string[] };
}

/** The public-config function: the public configuration, the OpenAPI document and the reference page. */
export function createPublicConfigFunction(context: AppContext, oidcConfig: () => PublicConfig['oidcConfig'] = () => publicOidcConfig(context.identity.oidc)): FunctionDefinition {
  // Built on first request, not at start: the CRDs are read from disk and the cold start stays lean.
  let reference: Promise<{ documentJson: string; page: string }> | undefined;
  const built = () =>
    (reference ??= platformKindDescriptions(context.config.apiGroup).then((kinds) => {
      const document = buildOpenApiDocument(context.routes, context.config.apiBaseUrl, kinds, context.config.apiGroup);
      return { documentJson: JSON.stringify(document), page: renderReferencePage(document) };
    }));
  return {
    name: 'public-config',
    handlers: {
      getPublicConfig: () => {
        const oidc = oidcConfig();
        const body: PublicConfig = { adminAccountEnabled: context.adminSettings.current().enabled, ...(oidc ? { oidcConfig: oidc } : {}) };
        return jsonResponse(200, body);
      },
      getOpenApiDocument: async () => ({ status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: (await built()).documentJson }),
      getApiReference: async () => ({
        status: 200,
        headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'" },
        body: (await built()).page,
      }),
    },
  };
}
