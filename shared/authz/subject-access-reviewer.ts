import { AuthorizationV1Api, type KubeConfig, type V1SubjectAccessReview } from '@kubernetes/client-node';
import type { Logger } from '../base/logging/logger.ts';
import { kubernetesUnavailable } from '../base/kubernetes/kubernetes-unavailable.ts';
import { isNonResource, type AuthorizationAttributes } from './authorizer.ts';
import { clusterApiSpan } from '../base/kubernetes/kubernetes-call-span.ts';
import { inSpan } from '../base/tracing/tracing.ts';

/** The user a SubjectAccessReview asks about. */
export interface ReviewSubject {
  user: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/** Hears one review sent to the cluster: its result and how long it took. */
export type ReviewObserver = (result: string, seconds: number) => void;

/** Asks whether a subject may do something; true when allowed. Throws ApiError 503 when it cannot tell. */
export interface SubjectAccessReviewer {
  review(subject: ReviewSubject, attributes: AuthorizationAttributes): Promise<boolean>;
}

/** Asks the cluster, one `SubjectAccessReview` per call (wrap it in a SubjectAccessReviewCache). */
export class KubernetesSubjectAccessReviewer implements SubjectAccessReviewer {
  readonly #api: AuthorizationV1Api;
  readonly #logger: Logger;
  readonly #kubeConfig: KubeConfig;
  readonly #observe: ReviewObserver | undefined;

  /** `observe` hears each review's result (`allowed`, `denied`, `error`) and latency (the metrics). */
  constructor(kubeConfig: KubeConfig, logger: Logger, observe?: ReviewObserver) {
    this.#api = kubeConfig.makeApiClient(AuthorizationV1Api);
    this.#logger = logger;
    this.#kubeConfig = kubeConfig;
    this.#observe = observe;
  }

  review(subject: ReviewSubject, attributes: AuthorizationAttributes): Promise<boolean> {
    // The span names what kind of thing was asked (verb, resource), never who asked nor which object or path.
    return inSpan(
      () =>
        clusterApiSpan('SubjectAccessReview', this.#kubeConfig, {
          'platform_api.authorization.verb': attributes.verb,
          'platform_api.authorization.resource': isNonResource(attributes)
            ? 'non-resource'
            : [attributes.resource, attributes.subresource].filter(Boolean).join('/'),
        }),
      async (span) => {
        const allowed = await this.#review(subject, attributes);
        span?.setAttribute('platform_api.authorization.allowed', allowed);
        return allowed;
      },
    );
  }

  async #review(subject: ReviewSubject, attributes: AuthorizationAttributes): Promise<boolean> {
    const body: V1SubjectAccessReview = {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        user: subject.user,
        ...(subject.uid ? { uid: subject.uid } : {}),
        groups: subject.groups,
        ...(subject.extra ? { extra: subject.extra } : {}),
        ...(isNonResource(attributes)
          ? { nonResourceAttributes: { path: attributes.nonResourcePath, verb: attributes.verb } }
          : { resourceAttributes: { ...attributes } }),
      },
    };
    let answer: V1SubjectAccessReview;
    const startedAt = performance.now();
    const seconds = () => (performance.now() - startedAt) / 1000;
    try {
      answer = await this.#api.createSubjectAccessReview({ body });
    } catch (error) {
      this.#observe?.('error', seconds());
      throw kubernetesUnavailable('SubjectAccessReview', error, this.#logger);
    }
    const allowed = answer.status?.allowed === true && answer.status.denied !== true;
    this.#observe?.(allowed ? 'allowed' : 'denied', seconds());
    return allowed;
  }
}
