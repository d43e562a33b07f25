import type { AppContext } from '../../shared/server/app/app-context.ts';
import { jsonResponse } from '../../shared/base/http/api-request.ts';
import { functionModule, type FunctionHandlers } from '../../shared/server/runtime/function-definition.ts';
import { routeHandlers } from '../../shared/server/runtime/typed-handlers.ts';
import { publicOidcConfig } from '../../shared/base/config/identity-config.ts';

/** What a client needs before it logs in. `oidcConfig` is omitted when OIDC is off. */
export interface PublicConfig {
  adminAccountEnabled: boolean;
  oidcConfig?: { issuerUrl: string; clientId: string; cliClientId: string; scopes: string[] };
}

/** The public-config function: its facts and its factory (shared/server/runtime/function-definition.ts, FunctionModule). */
/** The services of the app context the publicConfig function uses, and may use. */
const PUBLIC_CONFIG_SERVICES = ['adminSettings', 'config', 'identity', 'routes'] as const;

export const publicConfigFunction = functionModule({
  services: PUBLIC_CONFIG_SERVICES,
  name: 'public-config',
  cluster: 'on-first-use',
  runHistory: false,
  maintainsRunHistory: false,
  readiness: [],
  create: (context) => createPublicConfigFunction(context),
});

/** The public-config function: the public configuration, the OpenAPI document and the reference page. */
export function createPublicConfigFunction(
  context: Pick<AppContext, (typeof PUBLIC_CONFIG_SERVICES)[number]>,
  oidcConfig: () => PublicConfig['oidcConfig'] = () => publicOidcConfig(context.identity.oidc),
): FunctionHandlers {
  // Built on first request, not at start: the code that builds it (and the YAML parser for the CRDs) is a
  // chunk of its own in the bundles, and neither it nor the CRD files are read before someone asks.
  let reference: Promise<{ documentJson: string; page: string }> | undefined;
  const built = () =>
    (reference ??= buildReference(context).catch((error: unknown) => {
      reference = undefined;
      throw error;
    }));
  return {
    handlers: routeHandlers<'public-config'>({
      getPublicConfig: () => {
        const oidc = oidcConfig();
        const body: PublicConfig = {
          adminAccountEnabled: context.adminSettings.current().enabled,
          ...(oidc ? { oidcConfig: oidc } : {}),
        };
        return jsonResponse(200, body);
      },
      getOpenApiDocument: async () => ({
        status: 200,
        headers: { 'content-type': 'application/json; charset=utf-8' },
        body: (await built()).documentJson,
      }),
      getApiReference: async () => ({
        status: 200,
        headers: {
          'content-type': 'text/html; charset=utf-8',
          'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
        },
        body: (await built()).page,
      }),
    }),
  };
}

async function buildReference(
  context: Pick<AppContext, 'config' | 'routes'>,
): Promise<{ documentJson: string; page: string }> {
  const [{ buildOpenApiDocument }, { renderReferencePage }, { platformKindDescriptions }] = await Promise.all([
    import('../../shared/contract/openapi/openapi-document.ts'),
    import('../../shared/contract/openapi/reference-page.ts'),
    import('../../shared/contract/kinds/platform-kind-descriptions.ts'),
  ]);
  const document = buildOpenApiDocument(
    context.routes,
    context.config.apiBaseUrl,
    await platformKindDescriptions(context.config.apiGroup),
    context.config.apiGroup,
  );
  return { documentJson: JSON.stringify(document), page: renderReferencePage(document) };
}
