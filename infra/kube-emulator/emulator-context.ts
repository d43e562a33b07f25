// The parts of one emulator instance that request handlers share.
import type { RbacAuthorizer } from './rbac/rbac-authorizer.ts';
import type { RequestInfo } from './http/request-info.ts';
import type { ResourceRegistry } from './objects/resource-registry.ts';
import type { ResourceStore } from './storage/resource-store.ts';
import type { ServiceAccountTokens } from './reviews/service-account-tokens.ts';
import type { TokenAuthenticator } from './reviews/token-authenticator.ts';
import type { WatchHub } from './watch/watch.ts';

/** Calls counted so that tests can prove a client caches. */
export interface EmulatorCounters {
  tokenReviews: number;
  subjectAccessReviews: number;
  requests: number;
}

/** One request as the emulator understood it, for tests that check what a client really sent (an audit record). */
export interface RecordedRequest {
  method: string;
  /** The request target exactly as received, before any parsing. */
  rawUrl: string;
  user: string;
  info: RequestInfo;
  body: string;
}

export interface EmulatorContext {
  url: string;
  registry: ResourceRegistry;
  store: ResourceStore;
  watches: WatchHub;
  authenticator: TokenAuthenticator;
  serviceAccountTokens: ServiceAccountTokens;
  authorizer: RbacAuthorizer;
  counters: EmulatorCounters;
  requestObservers: Set<(request: RecordedRequest) => void>;
}
