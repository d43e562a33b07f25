import type { AppContext } from '../../shared/app/app-context.ts';
import type { ResourceAttributes } from '../../shared/authz/authorizer.ts';
import { apiError } from '../../shared/http/error-catalogue.ts';
import { jsonResponse, type ApiResponse } from '../../shared/http/api-request.ts';
import type { ClusterObjects } from '../../shared/resources/cluster-objects.ts';
import { WORKSPACE } from '../../shared/resources/platform-kinds.ts';
import type { PlatformObject } from '../../shared/resources/platform-object.ts';
import { pageOf } from '../../shared/runs/page-query.ts';
import { runStoreHttpError } from '../../shared/runs/run-http-errors.ts';
import { runPrincipal } from '../../shared/runs/run-principal.ts';
import { RunNotFoundError } from '../../shared/runs/run-errors.ts';
import type { DeclaredRoute } from '../../shared/routes/route-table.ts';
import type { AuthenticatedRequest, RouteHandlers, RouteRequest } from '../../shared/runtime/typed-handlers.ts';

type RunRoute<Id extends string> = Extract<DeclaredRoute, { operationId: Id }>;
/** Every run route is under `/api/v1alpha1/projects/{project}/` and needs a token. */
type RunRequest = Pick<AuthenticatedRequest, 'principal'> & { params: { readonly project: string } };

/**
 * The run history routes under `/api/v1alpha1/projects/{project}/`. A Project's runs live in its
 * namespace, so each is authorised on `workspaces/runs` there; the database is touched only after
 * the caller was allowed, so a denied request leaves nothing behind.
 */
export function runHandlers(context: AppContext, objects: ClusterObjects) {
  const authorize = (request: RunRequest, verb: string, name?: string) => {
    const attributes: ResourceAttributes = {
      verb,
      group: context.config.apiGroup,
      resource: 'workspaces',
      subresource: 'runs',
      namespace: request.params.project,
      ...(name ? { name } : {}),
    };
    return context.authorizer.authorize(request.principal, attributes);
  };
  /** The path's run, once the caller may `verb` runs of its Workspace; only those who could act on any run here learn it does not exist. */
  const authorisedRun = async (request: RouteRequest<RunRoute<'getRun' | 'cancelRun'>>, verb: string) => {
    const store = await context.runs.store();
    const run = await store.getRun(request.params.project, request.params.run).catch(async (error: unknown) => {
      if (error instanceof RunNotFoundError) await authorize(request, verb);
      throw error;
    });
    await authorize(request, verb, run.workspace);
    return { store, run };
  };
  const withRunErrors =
    <Request>(handler: (request: Request) => Promise<ApiResponse>) =>
    async (request: Request) => {
      try {
        return await handler(request);
      } catch (error) {
        throw runStoreHttpError(error);
      }
    };

  return {
    startRun: withRunErrors(async (request: RouteRequest<RunRoute<'startRun'>>) => {
      const { project, workspace } = request.params;
      await authorize(request, 'create', workspace);
      const input = request.input.body();
      const found = await objects.find<PlatformObject>(
        objects.platformPath(WORKSPACE, { namespace: project, name: workspace }),
      );
      if (!found) throw apiError('WorkspaceNotFound', `workspace "${workspace}" not found in project "${project}"`);
      if (found.spec?.suspend === true)
        throw apiError('WorkspaceSuspended', `workspace "${workspace}" is suspended (spec.suspend); no new runs start`);
      const store = await context.runs.store();
      const run = await store.createRun({ project, workspace, ...input, ...runPrincipal(request.principal) });
      return jsonResponse(201, run, {
        location: `/api/v1alpha1/projects/${encodeURIComponent(project)}/runs/${run.id}`,
      });
    }),
    listWorkspaceRuns: withRunErrors(async (request: RouteRequest<RunRoute<'listWorkspaceRuns'>>) => {
      const { project, workspace } = request.params;
      await authorize(request, 'list', workspace);
      const store = await context.runs.store();
      return jsonResponse(200, await store.listRuns({ project, workspace, ...pageOf(request.input.query()) }));
    }),
    listProjectRuns: withRunErrors(async (request: RouteRequest<RunRoute<'listProjectRuns'>>) => {
      await authorize(request, 'list');
      const store = await context.runs.store();
      return jsonResponse(
        200,
        await store.listRuns({ project: request.params.project, ...pageOf(request.input.query()) }),
      );
    }),
    getRun: withRunErrors(async (request: RouteRequest<RunRoute<'getRun'>>) =>
      jsonResponse(200, (await authorisedRun(request, 'get')).run),
    ),
    // Cancelling is authorised like starting: whoever may start runs in the Workspace may cancel them.
    cancelRun: withRunErrors(async (request: RouteRequest<RunRoute<'cancelRun'>>) => {
      const { store, run } = await authorisedRun(request, 'create');
      return jsonResponse(
        200,
        await store.requestCancel(run.project, run.id, runPrincipal(request.principal).principal),
      );
    }),
  } satisfies Partial<RouteHandlers<'resources'>>;
}
