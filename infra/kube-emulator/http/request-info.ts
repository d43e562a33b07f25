// Splits a request into the attributes the authorizer sees, as k8s.io/apiserver's RequestInfoFactory does.

/** The attributes of one request. */
export interface RequestInfo {
  /** False for discovery, /version, /openid/... and other non-resource paths. */
  isResourceRequest: boolean;
  path: string;
  verb: string;
  group: string;
  version: string;
  namespace: string;
  resource: string;
  name: string;
  subresource: string;
  /** The name RBAC sees: the URL's, or the one a list/watch's field selector narrows to. */
  authorizationName: string;
}

const VERB_OF_METHOD: Record<string, string> = {
  POST: 'create',
  GET: 'get',
  HEAD: 'get',
  PUT: 'update',
  PATCH: 'patch',
  DELETE: 'delete',
};

// Namespaces' own subresources, which are not namespaced collections.
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

/** Parses method and URL; a path outside /api and /apis, or without a resource, is a non-resource request. */
export function parseRequestInfo(method: string, url: URL): RequestInfo {
  const path = url.pathname;
  const nonResource: RequestInfo = {
    isResourceRequest: false,
    path,
    verb: method.toLowerCase(),
    group: '',
    version: '',
    namespace: '',
    resource: '',
    name: '',
    subresource: '',
    authorizationName: '',
  };
  let parts = path
    .split('/')
    .filter((part) => part !== '')
    .map(decodeURIComponent);
  let group = '';
  if (parts[0] === 'apis') {
    if (parts.length < 4) return nonResource;
    group = parts[1]!;
    parts = parts.slice(2);
  } else if (parts[0] === 'api') {
    if (parts.length < 3) return nonResource;
    parts = parts.slice(1);
  } else {
    return nonResource;
  }
  const version = parts.shift()!;
  let verb = VERB_OF_METHOD[method] ?? method.toLowerCase();
  if (parts[0] === 'watch') {
    verb = 'watch';
    parts = parts.slice(1);
  }
  let namespace = '';
  if (parts[0] === 'namespaces' && parts.length > 1) {
    namespace = parts[1]!;
    if (parts.length > 2 && !NAMESPACE_SUBRESOURCES.has(parts[2]!)) parts = parts.slice(2);
  }
  const [resource = '', name = '', subresource = ''] = parts;
  const watchParam = url.searchParams.get('watch');
  if (verb === 'get' && name === '') verb = watchParam === '1' || watchParam === 'true' ? 'watch' : 'list';
  if (verb === 'delete' && name === '') verb = 'deletecollection';
  // As kube-apiserver's RequestInfoFactory: a list or watch narrowed to one object by
  // `fieldSelector=metadata.name=<x>` is authorized with that name, so `resourceNames` rules apply.
  const selectedName =
    name === '' && (verb === 'list' || verb === 'watch')
      ? nameFromFieldSelector(url.searchParams.get('fieldSelector'))
      : '';
  return {
    isResourceRequest: true,
    path,
    verb,
    group,
    version,
    namespace,
    resource,
    name,
    subresource,
    authorizationName: name || selectedName,
  };
}

function nameFromFieldSelector(selector: string | null): string {
  for (const requirement of (selector ?? '').split(',')) {
    const match = /^metadata\.name(?:==|=)(.+)$/.exec(requirement.trim());
    if (match) return match[1]!;
  }
  return '';
}
