import type { OidcPrincipal, Principal, ServiceAccountPrincipal } from '../auth/principal.ts';
import { ApiError } from '../base/http/api-error.ts';
import {
  ADMIN_BYPASS,
  describeAttributes,
  type AuthorizationAttributes,
  type AuthorizationGrant,
  type Authorizer,
  type ReviewedAs,
} from './authorizer.ts';
import type { ServiceAccountClaimIndex } from './service-account-claim-index.ts';
import type { ServiceAccountName } from './service-account-claims.ts';
import type { ReviewSubject, SubjectAccessReviewer } from './subject-access-reviewer.ts';
import { apiError } from '../base/http/error-catalogue.ts';

/**
 * Authorization by principal type (spec): the admin bypasses every check; a ServiceAccount is
 * reviewed as the user TokenReview returned; an OIDC user is reviewed as each ServiceAccount
 * its claims map to, the first allow winning.
 */
export class PrincipalAuthorizer implements Authorizer {
  readonly #reviewer: SubjectAccessReviewer;
  readonly #claimIndex: ServiceAccountClaimIndex | undefined;

  /** `claimIndex` is absent when OIDC is off. */
  constructor(reviewer: SubjectAccessReviewer, claimIndex: ServiceAccountClaimIndex | undefined) {
    this.#reviewer = reviewer;
    this.#claimIndex = claimIndex;
  }

  async authorize(principal: Principal, attributes: AuthorizationAttributes): Promise<AuthorizationGrant> {
    switch (principal.type) {
      case 'admin':
        return ADMIN_BYPASS;
      case 'serviceaccount':
        return this.#authorizeServiceAccount(principal, attributes);
      case 'oidc':
        return this.#authorizeOidcUser(principal, attributes);
      case 'runtask':
        // A run task's token is bound to its task result by the route (boundTaskResult); it holds no permission.
        throw apiError('Forbidden', `${principal.name} may not ${describeAttributes(attributes)}`);
    }
  }

  reviewedAs(principal: Principal): ReviewedAs {
    switch (principal.type) {
      case 'admin':
        return { everything: true };
      case 'serviceaccount':
        return { everything: false, users: [{ user: principal.name, groups: principal.groups }] };
      case 'oidc':
        return { everything: false, users: this.#mappedAccounts(principal).map(serviceAccountSubject) };
      case 'runtask':
        return { everything: false, users: [] };
    }
  }

  /** The ServiceAccounts an OIDC user's claims map to; 503 until the mappings are loaded. */
  #mappedAccounts(principal: OidcPrincipal): ServiceAccountName[] {
    const index = this.#claimIndex;
    if (index === undefined || !index.synced) {
      throw apiError(
        'KubernetesUnavailable',
        'the ServiceAccount claim mappings have not been loaded from the Kubernetes API yet; retry shortly',
      );
    }
    return index.serviceAccountsFor(principal.claims);
  }

  async #authorizeServiceAccount(
    principal: ServiceAccountPrincipal,
    attributes: AuthorizationAttributes,
  ): Promise<AuthorizationGrant> {
    const subject: ReviewSubject = {
      user: principal.name,
      uid: principal.uid,
      groups: principal.groups,
      extra: principal.extra,
    };
    if (!(await this.#reviewer.review(subject, attributes))) {
      throw apiError('Forbidden', `${principal.name} may not ${describeAttributes(attributes)}`);
    }
    return { reason: `allowed by a SubjectAccessReview for ${principal.name}` };
  }

  async #authorizeOidcUser(principal: OidcPrincipal, attributes: AuthorizationAttributes): Promise<AuthorizationGrant> {
    const accounts = this.#mappedAccounts(principal);
    if (accounts.length === 0) {
      throw apiError(
        'Forbidden',
        `user "${principal.name}" maps to no ServiceAccount, so may not ${describeAttributes(attributes)}`,
      );
    }
    let failure: ApiError | undefined;
    for (const account of accounts) {
      try {
        if (await this.#reviewer.review(serviceAccountSubject(account), attributes)) {
          return {
            reason: `allowed by a SubjectAccessReview for ServiceAccount ${account.namespace}/${account.name}, which user "${principal.name}" maps to`,
            asServiceAccount: { namespace: account.namespace, name: account.name },
          };
        }
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        failure = error;
      }
    }
    // An allow elsewhere would have been honoured; without one, an unanswered review is not a denial.
    if (failure) throw failure;
    const names = accounts.map((account) => `${account.namespace}/${account.name}`).join(', ');
    throw apiError(
      'Forbidden',
      `user "${principal.name}" (as ServiceAccount ${names}) may not ${describeAttributes(attributes)}`,
    );
  }
}

/** The user a ServiceAccount's own token would authenticate as, with the groups Kubernetes adds. */
function serviceAccountSubject(account: ServiceAccountName): ReviewSubject {
  return {
    user: `system:serviceaccount:${account.namespace}:${account.name}`,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${account.namespace}`, 'system:authenticated'],
  };
}
