import type { AppContext } from '../../../shared/server/app/app-context.ts';
import { jsonResponse } from '../../../shared/base/http/api-request.ts';
import { apiError } from '../../../shared/base/http/error-catalogue.ts';
import type { ClusterObjects } from '../../../shared/domain/resources/cluster-objects.ts';
import type { DeclaredRoute } from '../../../shared/contract/routes/route-table.ts';
import { runPrincipal } from '../../../shared/domain/runs/run-principal.ts';
import type { RouteRequest } from '../../../shared/server/runtime/typed-handlers.ts';
import { TokenCredentials, tokenUserName } from '../../../shared/domain/tokens/token-credentials.ts';
import { tokenLifetimeSeconds } from '../../../shared/domain/tokens/token-lifetime.ts';
import {
  assertMayGrant,
  assertTokenMayMint,
  describeRole,
  parseRole,
  readRoleRules,
} from '../../../shared/domain/tokens/token-role.ts';
import { projectTokenUsed } from '../../../shared/domain/tokens/project-token-principals.ts';
import { noteForAudit } from '../../../shared/domain/audit/audit-annotations.ts';
import { bindProjectTokens } from '../kinds/project-secrets-binding.ts';

type TokenRoute<Id extends string> = Extract<DeclaredRoute, { operationId: Id }>;

/** The audit annotation naming the Project token a request created or revoked (never its value). */
export const PROJECT_TOKEN_ANNOTATION = 'platform-api/project-token';

/**
 * The Project token routes (issue 46). The chain authorized the caller on `tokens` in the Project's
 * namespace; creating also checks that the caller holds what the role grants (no escalation). The
 * cluster holds the credential, the database what the list shows; the value is answered once.
 */
export function tokenHandlers(
  context: Pick<AppContext, 'authenticator' | 'authorizer' | 'config' | 'metrics' | 'projectTokens'>,
  objects: ClusterObjects,
) {
  const credentials = new TokenCredentials(objects);
  const tokens = context.projectTokens;
  const projectOf = (request: { authorization: { resource: { namespace?: string } } }) => {
    const project = request.authorization.resource.namespace;
    if (project === undefined) throw new Error('tokens are authorized in a Project');
    return project;
  };
  return {
    createProjectToken: async (request: RouteRequest<TokenRoute<'createProjectToken'>>) => {
      const project = projectOf(request);
      const { name, description = '', role, lifetime } = request.input.body();
      const expirationSeconds = tokenLifetimeSeconds(lifetime);
      const minting = projectTokenUsed(request.principal, objects.apiGroup);
      const mintingRole = minting && (await tokens.liveRole(minting.project, minting.name));
      if (minting && mintingRole) await assertTokenMayMint(objects, minting, parseRole(mintingRole), request.deadline);
      const rules = await readRoleRules(objects, role, project, request.deadline);
      await assertMayGrant(context.authorizer, request.principal, role, rules, project);
      noteForAudit(request, PROJECT_TOKEN_ANNOTATION, name);
      await bindProjectTokens(objects, context.config.projectSecretsAccess, project);
      let issued: Awaited<ReturnType<TokenCredentials['issue']>>;
      try {
        issued = await credentials.issue(project, name, role, expirationSeconds, request.deadline);
      } catch (error) {
        if ((error as { reason?: string }).reason === 'AlreadyExists')
          throw apiError('TokenAlreadyExists', `a token "${name}" exists in project "${project}"`);
        throw error;
      }
      const record = await tokens
        .insert({
          project,
          name,
          boundUid: issued.boundUid,
          description,
          role: describeRole(role),
          creator: runPrincipal(request.principal).principal,
          expiresAt: issued.expiresAt,
        })
        .catch(async (error: unknown) => {
          await credentials.revoke(project, name).catch(() => undefined);
          throw error;
        });
      if (!record) {
        await credentials.revoke(project, name).catch(() => undefined);
        throw apiError('TokenAlreadyExists', `a token "${name}" exists in project "${project}"`);
      }
      context.metrics.projectToken('created', project);
      return jsonResponse(201, { ...record, token: issued.token });
    },
    listProjectTokens: async (request: RouteRequest<TokenRoute<'listProjectTokens'>>) =>
      jsonResponse(200, { items: await tokens.list(projectOf(request)) }),
    revokeProjectToken: async (request: RouteRequest<TokenRoute<'revokeProjectToken'>>) => {
      const project = projectOf(request);
      const name = request.authorization.resource.name!;
      noteForAudit(request, PROJECT_TOKEN_ANNOTATION, name);
      const user = tokenUserName(project, name);
      const revoked = await tokens.revoke(project, name, user, () => credentials.revoke(project, name));
      if (!revoked) throw apiError('TokenNotFound', `no live token "${name}" in project "${project}"`);
      // This instance at once; the others when they hear the notification.
      context.authenticator.forgetUser(user);
      context.metrics.projectToken('revoked', project);
      return { status: 204, headers: { 'cache-control': 'no-store' }, body: undefined };
    },
  };
}
