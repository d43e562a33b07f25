import type { AppContext } from '../../shared/app/app-context.ts';
import type { ResourceAttributes } from '../../shared/authz/authorizer.ts';
import { jsonResponse } from '../../shared/http/api-request.ts';
import { readJsonObject } from '../../shared/http/json-body.ts';
import type { ClusterObjects } from '../../shared/resources/cluster-objects.ts';
import { WORKSPACE } from '../../shared/resources/platform-kinds.ts';
import type { PlatformObject } from '../../shared/resources/platform-object.ts';
import { pageQuery } from '../../shared/runs/page-query.ts';
import { RUN_TYPES, type RunType } from '../../shared/runs/run.ts';
import { runStoreHttpError } from '../../shared/runs/run-http-errors.ts';
import { runPrincipal } from '../../shared/runs/run-principal.ts';
import { RunNotFoundError } from '../../shared/runs/run-errors.ts';
import type { HandlerRequest, RouteHandler } from '../../shared/runtime/function-definition.ts';
import { apiError } from '../../shared/http/error-catalogue.ts';

const MAX_MESSAGE_LENGTH = 4096;

/**
 * The run history routes under `/api/v1alpha1/projects/{project}/`. A Project's runs live in its
 * namespace, so each is authorised on `workspaces/runs` there; the database is touched only after
 * the caller was allowed, so a denied request leaves nothing behind.
 */
export function runHandlers(context: AppContext, objects: ClusterObjects): Record<string, RouteHandler> {
  const authorize = (request: HandlerRequest, verb: string, name?: string) => {
    const attributes: ResourceAttributes = { verb, group: context.config.apiGroup, resource: 'workspaces', subresource: 'runs', namespace: request.params.project!, ...(name ? { name } : {}) };
    return context.authorizer.authorize(request.principal!, attributes);
  };
  /** The path's run, once the caller may `verb` runs of its Workspace; only those who could act on any run here learn it does not exist. */
  const authorisedRun = async (request: HandlerRequest, verb: string) => {
    const store = await context.runs.store();
    const run = await store.getRun(request.params.project!, request.params.run!).catch(async (error: unknown) => {
      if (error instanceof RunNotFoundError) await authorize(request, verb);
      throw error;
    });
    await authorize(request, verb, run.workspace);
    return { store, run };
  };
  const withRunErrors = (handler: RouteHandler): RouteHandler => async (request) => {
    try {
      return await handler(request);
    } catch (error) {
      throw runStoreHttpError(error);
    }
  };

  return {
    startRun: withRunErrors(async (request) => {
      const { project, workspace } = request.params as { project: string; workspace: string };
      await authorize(request, 'create', workspace);
      const input = parseStartRun(request);
      const found = await objects.find<PlatformObject>(objects.platformPath(WORKSPACE, { namespace: project, name: workspace }));
      if (!found) throw apiError('WorkspaceNotFound', `workspace "${workspace}" not found in project "${project}"`);
      if (found.spec?.suspend === true) throw apiError('WorkspaceSuspended', `workspace "${workspace}" is suspended (spec.suspend); no new runs start`);
      const store = await context.runs.store();
      const run = await store.createRun({ project, workspace, ...input, ...runPrincipal(request.principal!) });
      return jsonResponse(201, run, { location: `/api/v1alpha1/projects/${encodeURIComponent(project)}/runs/${run.id}` });
    }),
    listWorkspaceRuns: withRunErrors(async (request) => {
      await authorize(request, 'list', request.params.workspace);
      const store = await context.runs.store();
      return jsonResponse(200, await store.listRuns({ project: request.params.project!, workspace: request.params.workspace!, ...pageQuery(request.query) }));
    }),
    listProjectRuns: withRunErrors(async (request) => {
      await authorize(request, 'list');
      const store = await context.runs.store();
      return jsonResponse(200, await store.listRuns({ project: request.params.project!, ...pageQuery(request.query) }));
    }),
    getRun: withRunErrors(async (request) => jsonResponse(200, (await authorisedRun(request, 'get')).run)),
    // Cancelling is authorised like starting: whoever may start runs in the Workspace may cancel them.
    cancelRun: withRunErrors(async (request) => {
      const { store, run } = await authorisedRun(request, 'create');
      return jsonResponse(200, await store.requestCancel(run.project, run.id, runPrincipal(request.principal!).principal));
    }),
  };
}

function parseStartRun(request: HandlerRequest): { type: RunType; message?: string } {
  const body = readJsonObject(request, 'InvalidRun');
  const unknown = Object.keys(body).filter((key) => key !== 'type' && key !== 'message');
  if (unknown.length > 0) throw apiError('InvalidRun', `unknown field(s): ${unknown.join(', ')}`);
  if (!RUN_TYPES.includes(body.type as RunType)) throw apiError('InvalidRun', `type must be one of ${RUN_TYPES.join(', ')}`);
  if (body.message !== undefined && (typeof body.message !== 'string' || body.message.length > MAX_MESSAGE_LENGTH)) {
    throw apiError('InvalidRun', `message must be a string of at most ${MAX_MESSAGE_LENGTH} characters`);
  }
  return { type: body.type as RunType, ...(body.message !== undefined ? { message: body.message as string } : {}) };
}
