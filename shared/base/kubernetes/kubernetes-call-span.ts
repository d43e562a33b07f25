import type { KubeConfig } from '@kubernetes/client-node';
import { SpanKind, type Attributes, type SpanDescription } from '../tracing/tracing.ts';

/** What of a Kubernetes call (kubernetes-rest-client.ts) its span is named from. */
interface KubernetesRequestLine {
  method: string;
  path: string;
  query?: URLSearchParams;
}

/**
 * The CLIENT span of one Kubernetes API call, named `<verb> <resource>` as kube-apiserver's audit
 * names requests (`list workspaces`, `get workspaces/status`, `watch runs`): never the object's
 * namespace or name, so the set of span names stays bounded.
 */
export function kubernetesCallSpan(call: KubernetesRequestLine, server: URL): SpanDescription {
  const { verb, resource } = kubernetesRequestInfo(call);
  return {
    name: `${verb} ${resource}`,
    kind: SpanKind.CLIENT,
    attributes: {
      'http.request.method': call.method,
      ...serverAttributes(server),
      'platform_api.kubernetes.verb': verb,
      'platform_api.kubernetes.resource': resource,
    },
  };
}

/**
 * The CLIENT span of a call the generated client makes (a TokenReview, a SubjectAccessReview, the
 * ServiceAccount key set): `name` and the cluster's address. What the call carries (a token, a
 * user) is no attribute.
 */
export function clusterApiSpan(name: string, kubeConfig: KubeConfig, attributes: Attributes = {}): SpanDescription {
  const server = kubeConfig.getCurrentCluster()?.server;
  return {
    name,
    kind: SpanKind.CLIENT,
    attributes: { ...(server ? serverAttributes(new URL(server)) : {}), ...attributes },
  };
}

function serverAttributes(server: URL): Attributes {
  return {
    'server.address': server.hostname.replace(/^\[|\]$/g, ''),
    'server.port': Number(server.port) || (server.protocol === 'https:' ? 443 : 80),
  };
}

/** The Kubernetes verb and resource (with its subresource) of a REST call, as kube-apiserver's RequestInfo derives them. */
export function kubernetesRequestInfo(call: KubernetesRequestLine): { verb: string; resource: string } {
  const segments = call.path.split('/').filter(Boolean);
  // `/api/v1/...` (the core group) or `/apis/<group>/<version>/...`; anything else is a non-resource path.
  const rest = segments[0] === 'api' ? segments.slice(2) : segments[0] === 'apis' ? segments.slice(3) : undefined;
  if (rest === undefined || rest.length === 0) return { verb: call.method.toLowerCase(), resource: 'non-resource' };
  const [resource, name, subresource] =
    rest[0] === 'namespaces' && rest.length > 2 ? rest.slice(2) : (rest as [string, string?, string?]);
  const named = name !== undefined;
  return { verb: verbOf(call, named), resource: subresource ? `${resource}/${subresource}` : resource! };
}

function verbOf(call: KubernetesRequestLine, named: boolean): string {
  switch (call.method) {
    case 'GET':
    case 'HEAD':
      if (call.query?.get('watch') === 'true') return 'watch';
      return named ? 'get' : 'list';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return named ? 'delete' : 'deletecollection';
    default:
      return call.method.toLowerCase();
  }
}
