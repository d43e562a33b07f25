// Discovery and the other non-resource documents: /version, /api, /apis, per-group resource lists, the
// ServiceAccount issuer's OpenID configuration and key set, minimal OpenAPI documents, and health checks.
import { EMULATED_VERSION } from './emulated-version.ts';
import type { EmulatorContext } from '../emulator-context.ts';
import type { JsonReply } from './http-messages.ts';
import { openApiV2, openApiV3Document, openApiV3Root } from './openapi.ts';
import { apiVersionOf } from '../objects/resource-registry.ts';
import type { ResourceType } from '../objects/resource-registry.ts';

function groupVersions(context: EmulatorContext): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const type of context.registry.all()) {
    const versions = groups.get(type.group) ?? [];
    for (const version of type.versions) if (!versions.includes(version)) versions.push(version);
    groups.set(type.group, versions);
  }
  return groups;
}

function apiGroup(name: string, versions: string[]): Record<string, unknown> {
  const entries = versions.map((version) => ({ groupVersion: apiVersionOf(name, version), version }));
  return { name, versions: entries, preferredVersion: entries[0] };
}

function resourceEntries(type: ResourceType): Record<string, unknown>[] {
  const main = {
    name: type.resource,
    singularName: type.singular,
    namespaced: type.namespaced,
    kind: type.kind,
    verbs: type.verbs,
    ...(type.shortNames.length > 0 ? { shortNames: type.shortNames } : {}),
  };
  const subresources = type.subresources.map((subresource) =>
    subresource === 'token'
      ? {
          name: `${type.resource}/token`,
          singularName: '',
          namespaced: true,
          group: 'authentication.k8s.io',
          version: 'v1',
          kind: 'TokenRequest',
          verbs: ['create'],
        }
      : {
          name: `${type.resource}/${subresource}`,
          singularName: '',
          namespaced: type.namespaced,
          kind: type.kind,
          verbs: ['get', 'patch', 'update'],
        },
  );
  return [main, ...subresources];
}

function resourceList(context: EmulatorContext, group: string, version: string): JsonReply | undefined {
  const types = context.registry.all().filter((type) => type.group === group && type.versions.includes(version));
  if (types.length === 0) return undefined;
  return {
    status: 200,
    body: {
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: apiVersionOf(group, version),
      resources: types.flatMap(resourceEntries),
    },
  };
}

/** The document at a non-resource path (in the format `accept` asks for), or undefined when none is there. */
export function discoveryDocument(context: EmulatorContext, path: string, accept: string): JsonReply | undefined {
  const parts = path.split('/').filter((part) => part !== '');
  const groups = groupVersions(context);
  const ok = (body: unknown): JsonReply => ({ status: 200, body });
  switch (path.replace(/\/$/, '') || '/') {
    case '/version':
      return ok({
        ...EMULATED_VERSION,
        gitCommit: 'emulated',
        gitTreeState: 'clean',
        buildDate: '2025-04-23T00:00:00Z',
        goVersion: 'go1.24.2',
        compiler: 'gc',
        platform: 'linux/amd64',
      });
    case '/api':
      return ok({
        kind: 'APIVersions',
        versions: ['v1'],
        serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: new URL(context.url).host }],
      });
    case '/apis':
      return ok({
        kind: 'APIGroupList',
        apiVersion: 'v1',
        groups: [...groups].filter(([name]) => name !== '').map(([name, versions]) => apiGroup(name, versions)),
      });
    case '/.well-known/openid-configuration':
      return ok({
        issuer: context.serviceAccountTokens.issuer,
        jwks_uri: `${context.url}/openid/v1/jwks`,
        response_types_supported: ['id_token'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
      });
    case '/openid/v1/jwks':
      return { status: 200, body: context.serviceAccountTokens.jwks, contentType: 'application/jwk-set+json' };
    case '/openapi/v2':
      return openApiV2(accept);
    case '/openapi/v3':
      return ok(openApiV3Root(context));
  }
  if (path.startsWith('/openapi/v3/')) {
    const document = openApiV3Document(context, path.slice('/openapi/v3/'.length).replace(/\/$/, ''));
    return document ? ok(document) : undefined;
  }
  if (parts[0] === 'api' && parts.length === 2) return resourceList(context, '', parts[1]!);
  if (parts[0] === 'apis' && parts.length === 2) {
    const versions = groups.get(parts[1]!);
    return versions ? ok({ kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(parts[1]!, versions) }) : undefined;
  }
  if (parts[0] === 'apis' && parts.length === 3) return resourceList(context, parts[1]!, parts[2]!);
  return undefined;
}
