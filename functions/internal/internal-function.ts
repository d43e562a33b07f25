import type { AppContext } from '../../shared/app/app-context.ts';
import { jsonResponse } from '../../shared/http/api-request.ts';
import { KubernetesRestClient } from '../../shared/kubernetes/kubernetes-rest-client.ts';
import { ClusterObjects } from '../../shared/resources/cluster-objects.ts';
import { pageQuery } from '../../shared/runs/page-query.ts';
import { UNFINISHED_PHASES, type UnfinishedPhase } from '../../shared/runs/run-store.ts';
import { runStoreHttpError } from '../../shared/runs/run-http-errors.ts';
import { runPrincipal } from '../../shared/runs/run-principal.ts';
import type { FunctionDefinition, RouteHandler } from '../../shared/runtime/function-definition.ts';
import { leaseHeader, parseClaim, parseFinish, parseLogChunk, parseRenewal } from './controller-requests.ts';
import { resolveRunVariables } from './run-variables.ts';
import { apiError } from '../../shared/http/error-catalogue.ts';

/** The internal function: the workspace controller's protocol under /internal/* (docs/run-history.md, "Leases"). */
export function createInternalFunction(context: AppContext): FunctionDefinition {
  // Made when a run's variables are first asked for: the function connects to the cluster on first use.
  let objects: ClusterObjects | undefined;
  const clusterObjects = async () => (objects ??= new ClusterObjects(new KubernetesRestClient((await context.cluster()).kubeConfig, context.logger), context.config.apiGroup));
  // Every call is a non-resource SubjectAccessReview first, so RBAC (nonResourceURLs) decides who may
  // call what, and a refused caller reaches neither the database nor the cluster.
  const authorised = (handler: RouteHandler): RouteHandler => async (request) => {
    await context.authorizer.authorize(request.principal!, { nonResourcePath: request.path, verb: request.method.toLowerCase() });
    try {
      return await handler(request);
    } catch (error) {
      throw runStoreHttpError(error);
    }
  };
  const leases = async () => (await context.runs.store()).leases;

  return {
    name: 'internal',
    handlers: {
      listRunsInPhase: authorised(async (request) => {
        const phase = request.query.get('phase') ?? 'Pending';
        if (!UNFINISHED_PHASES.includes(phase as UnfinishedPhase)) throw apiError('InvalidPhase', `phase must be one of ${UNFINISHED_PHASES.join(', ')}`);
        const store = await context.runs.store();
        return jsonResponse(200, await store.listUnfinishedRuns({ phase: phase as UnfinishedPhase, ...pageQuery(request.query) }));
      }),
      claimRun: authorised(async (request) => {
        const { filter, leaseMs } = parseClaim(request);
        const claimed = await (await leases()).claim(runPrincipal(request.principal!).principal, leaseMs, filter);
        return claimed ? jsonResponse(200, claimed) : { status: 204, headers: { 'cache-control': 'no-store' }, body: undefined };
      }),
      renewRunLease: authorised(async (request) => {
        const { leaseId, leaseMs } = parseRenewal(request);
        return jsonResponse(200, await (await leases()).renew(request.params.run!, leaseId, leaseMs));
      }),
      setRunPhase: authorised(async (request) => {
        const { leaseId, phase, message } = parseFinish(request);
        return jsonResponse(200, await (await leases()).finish(request.params.run!, leaseId, phase, message));
      }),
      appendRunLogs: authorised(async (request) => {
        const { leaseId, firstSeq, lines } = parseLogChunk(request);
        return jsonResponse(200, await (await leases()).appendChunk(request.params.run!, leaseId, firstSeq, lines));
      }),
      getRunVariables: authorised(async (request) => {
        const run = await (await leases()).heldRun(request.params.run!, leaseHeader(request));
        return jsonResponse(200, { variables: await resolveRunVariables(await clusterObjects(), run.project, run.workspace) });
      }),
      internal: authorised((request) => {
        throw apiError('NotFound', `no internal route ${request.method} ${request.path}`);
      }),
    },
    readiness: () => context.runs.checkReady(),
  };
}
