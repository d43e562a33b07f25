import type { ClusterObjects } from '../resources/cluster-objects.ts';
import { apiError } from '../../base/http/error-catalogue.ts';
import { clusterFailure } from '../resources/kubernetes-status.ts';
import { describeRole, RBAC_GROUP, type TokenRole } from './token-role.ts';

/** The ServiceAccount (and RoleBinding) a Project token `name` is: `token-<name>` in the Project's namespace. */
export function tokenAccountName(name: string): string {
  return `token-${name}`;
}

/** The Kubernetes user name a Project token authenticates as. */
export function tokenUserName(project: string, name: string): string {
  return `system:serviceaccount:${project}:${tokenAccountName(name)}`;
}

/** The Project token a ServiceAccount user name is, if it is one: by its name, `token-<name>`. */
export function projectTokenOf(user: string): { project: string; name: string } | undefined {
  const match = /^system:serviceaccount:([^:]+):token-([^:]+)$/.exec(user);
  return match ? { project: match[1]!, name: match[2]! } : undefined;
}

/** What TokenRequest issued: the token (answered once, never kept) and when it expires. */
export interface IssuedToken {
  token: string;
  expiresAt: Date;
  /** The uid of the ServiceAccount the token is bound to. */
  boundUid: string;
}

/**
 * A Project token in the cluster, written with the API server's own ServiceAccount: a ServiceAccount
 * of its own (labelled), a RoleBinding of the role to it, and a TokenRequest for the API server's
 * audience with the lifetime asked. The token is bound to its ServiceAccount: deleting it (a
 * revocation, here or in the cluster directly) makes TokenReview refuse the token at once, and
 * Kubernetes' own escalation check applies to the server's RoleBinding.
 */
export class TokenCredentials {
  readonly #objects: ClusterObjects;

  constructor(objects: ClusterObjects) {
    this.#objects = objects;
  }

  /**
   * Creates the ServiceAccount, binding and token; takes back what it created when a step fails, and only
   * that: a RoleBinding of the same name that was there before (not the platform's) is left as it was.
   */
  async issue(
    project: string,
    name: string,
    role: TokenRole,
    expirationSeconds: number,
    signal?: AbortSignal,
  ): Promise<IssuedToken> {
    const accountName = tokenAccountName(name);
    const labels = { [`${this.#objects.apiGroup}/project-token`]: name };
    const account = await this.#objects.send<{ metadata: { uid: string } }>({
      method: 'POST',
      path: this.#objects.corePath('serviceaccounts', { namespace: project }),
      body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: accountName, labels } },
      ...(signal ? { signal } : {}),
    });
    let bound = false;
    try {
      const binding = await this.#objects.answer({
        method: 'POST',
        path: bindingsPath(project),
        body: {
          apiVersion: `${RBAC_GROUP}/v1`,
          kind: 'RoleBinding',
          metadata: { name: accountName, labels },
          roleRef: { apiGroup: RBAC_GROUP, kind: role.kind, name: role.name },
          subjects: [{ kind: 'ServiceAccount', name: accountName, namespace: project }],
        },
      });
      // Kubernetes' escalation check refused the server's own binding: the role grants more than the
      // server holds (wildcards, resources outside the platform). The caller's request, not a failure to retry.
      if (binding.status === 403)
        throw apiError(
          'Forbidden',
          `a token may not be given ${describeRole(role)}: it grants more than the API server itself holds in project "${project}", and Kubernetes lets no one bind what they do not hold (docs/tokens.md)`,
        );
      if (binding.status < 200 || binding.status > 299) throw clusterFailure(binding);
      bound = true;
      const request = await this.#objects.send<{ status: { token: string; expirationTimestamp: string } }>({
        method: 'POST',
        path: this.#objects.corePath('serviceaccounts', {
          namespace: project,
          name: accountName,
          subresource: 'token',
        }),
        // No audiences: the API server's own, which is what TokenReview checks the token against.
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds } },
      });
      return {
        token: request.body.status.token,
        expiresAt: new Date(request.body.status.expirationTimestamp),
        boundUid: account.body.metadata.uid,
      };
    } catch (error) {
      const undo = bound
        ? this.revoke(project, name)
        : this.#objects.deleteIfPresent(
            this.#objects.corePath('serviceaccounts', { namespace: project, name: accountName }),
          );
      await undo.catch(() => undefined);
      throw error;
    }
  }

  /** Deletes the bound ServiceAccount (which ends the token) and its RoleBinding, whichever are left. */
  async revoke(project: string, name: string): Promise<void> {
    const accountName = tokenAccountName(name);
    await this.#objects.deleteIfPresent(
      this.#objects.corePath('serviceaccounts', { namespace: project, name: accountName }),
    );
    await this.#objects.deleteIfPresent(`${bindingsPath(project)}/${encodeURIComponent(accountName)}`);
  }
}

function bindingsPath(project: string): string {
  return `/apis/${RBAC_GROUP}/v1/namespaces/${encodeURIComponent(project)}/rolebindings`;
}
