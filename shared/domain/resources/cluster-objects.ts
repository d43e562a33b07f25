import type {
  KubernetesAnswer,
  KubernetesCall,
  KubernetesRestClient,
} from '../../base/kubernetes/kubernetes-rest-client.ts';
import { clusterFailure } from './kubernetes-status.ts';
import { API_VERSION, type PlatformKind } from '../../contract/kinds/platform-kinds.ts';

/** Where an object (or a collection, without `name`) lives in the Kubernetes API. */
export interface ObjectLocation {
  namespace?: string;
  name?: string;
  subresource?: string;
}

/**
 * The cluster as the API server's own ServiceAccount sees it: paths of the platform's kinds and of
 * the core objects it manages, and calls that return the body or throw the cluster's `Status`.
 */
export class ClusterObjects {
  readonly #rest: KubernetesRestClient;
  readonly apiGroup: string;

  constructor(rest: KubernetesRestClient, apiGroup: string) {
    this.#rest = rest;
    this.apiGroup = apiGroup;
  }

  /** `/apis/<group>/v1alpha1/[namespaces/<ns>/]<plural>[/<name>[/<subresource>]]`. */
  platformPath(kind: PlatformKind, location: ObjectLocation = {}): string {
    const scope =
      kind.namespaced && location.namespace !== undefined
        ? `/namespaces/${encodeURIComponent(location.namespace)}`
        : '';
    return `/apis/${this.apiGroup}/${API_VERSION}${scope}/${kind.plural}${itemPath(location)}`;
  }

  /** `/api/v1/[namespaces/<ns>/]<resource>[/<name>]` for core objects (namespaces, secrets). */
  corePath(resource: string, location: ObjectLocation = {}): string {
    const scope = location.namespace !== undefined ? `/namespaces/${encodeURIComponent(location.namespace)}` : '';
    return `/api/v1${scope}/${resource}${itemPath(location)}`;
  }

  /** Sends a call; resolves with the body of a 2xx answer, throws the cluster's `Status` otherwise. */
  async send<T = unknown>(call: KubernetesCall): Promise<{ status: number; body: T; warnings?: string[] }> {
    const answer = await this.#rest.call(call);
    if (answer.status < 200 || answer.status > 299) throw clusterFailure(answer);
    return answer as { status: number; body: T; warnings?: string[] };
  }

  /** Sends a call; resolves with the cluster's answer whatever its status, for a caller that tells one refusal apart. */
  async answer(call: KubernetesCall): Promise<KubernetesAnswer> {
    return this.#rest.call(call);
  }

  /** Opens a watch of a collection; resolves with its event lines, throws the cluster's `Status` when refused. */
  async watch(path: string, query: URLSearchParams, signal: AbortSignal): Promise<AsyncIterable<string>> {
    query.set('watch', 'true');
    const answer = await this.#rest.watch({ method: 'GET', path, query }, signal);
    if ('events' in answer) return answer.events;
    throw clusterFailure(answer);
  }

  /** GETs an object; undefined when it does not exist. `signal`: the request's deadline. */
  async find<T = unknown>(path: string, signal?: AbortSignal): Promise<T | undefined> {
    const answer = await this.#rest.call({ method: 'GET', path, ...(signal ? { signal } : {}) });
    if (answer.status === 404) return undefined;
    if (answer.status < 200 || answer.status > 299) throw clusterFailure(answer);
    return answer.body as T;
  }

  /** DELETEs an object that may already be gone; `query` carries `dryRun=All` for a follow-up of a dry run. */
  async deleteIfPresent(path: string, query?: URLSearchParams): Promise<void> {
    const answer = await this.#rest.call({ method: 'DELETE', path, ...(query ? { query } : {}) });
    if (answer.status !== 404 && (answer.status < 200 || answer.status > 299)) throw clusterFailure(answer);
  }
}

function itemPath(location: ObjectLocation): string {
  if (location.name === undefined) return '';
  return `/${encodeURIComponent(location.name)}${location.subresource ? `/${location.subresource}` : ''}`;
}
