import { LAPSED_LEASES_ANNOTATION, RUN_ANNOTATION, noteForAudit } from '../../shared/domain/audit/audit-annotations.ts';
import type { AppContext } from '../../shared/server/app/app-context.ts';
import { CatalogueError, notFound, payloadTooLarge } from '../../shared/base/http/error-catalogue.ts';
import { jsonResponse } from '../../shared/base/http/api-request.ts';
import { KubernetesRestClient } from '../../shared/base/kubernetes/kubernetes-rest-client.ts';
import { redactPath } from '../../shared/base/logging/redaction.ts';
import { ClusterObjects } from '../../shared/domain/resources/cluster-objects.ts';
import { pageOf } from '../../shared/domain/runs/records/page-query.ts';
import { runPrincipal } from '../../shared/domain/runs/run-principal.ts';
import type { Run } from '../../shared/domain/runs/run.ts';
import type { SensitiveValue } from '../../shared/domain/runs/logs/log-masking.ts';
import { functionModule, type FunctionHandlers } from '../../shared/server/runtime/function-definition.ts';
import { routeHandlers, type RouteHandlers } from '../../shared/server/runtime/typed-handlers.ts';
import { ClusterEventReconciler } from '../../shared/domain/cluster-events/cluster-event-reconciler.ts';
import { notificationReceivers } from '../../shared/domain/notifications/notification-receivers.ts';
import { runTaskReceivers } from '../../shared/domain/run-tasks/run-task-receivers.ts';
import { RunTaskRequests } from '../../shared/domain/runs/tasks/run-task-requests.ts';
import { leaseHeader } from './controller-requests.ts';
import { mayProceed } from '../../shared/domain/runs/tasks/run-task-results.ts';
import { postPlanTasksOf } from '../../shared/domain/runs/tasks/run-task-objects.ts';
import type { LeaseHolder } from '../../shared/domain/runs/leases/run-leases.ts';
import { runLogMasking } from '../../shared/domain/runs/logs/run-log-masking.ts';
import { resolveRunVariables } from './run-variables.ts';

/** The internal function: its facts and its factory (shared/server/runtime/function-definition.ts, FunctionModule). */
/** The services of the app context the internal function uses, and may use. */
const INTERNAL_SERVICES = ['cluster', 'config', 'logger', 'outbound', 'runs'] as const;

export const internalFunction = functionModule({
  services: INTERNAL_SERVICES,
  name: 'internal',
  cluster: 'on-first-use',
  runHistory: true,
  maintainsRunHistory: false,
  readiness: [],
  create: (context) => createInternalFunction(context),
});

/** The internal function: the workspace controller's protocol under /internal/* (docs/run-history.md, "Leases"). */
export function createInternalFunction(
  context: Pick<AppContext, (typeof INTERNAL_SERVICES)[number]>,
): FunctionHandlers {
  // Made when a run's variables are first asked for: the function connects to the cluster on first use.
  let objects: ClusterObjects | undefined;
  const clusterObjects = async () =>
    (objects ??= new ClusterObjects(
      new KubernetesRestClient((await context.cluster()).kubeConfig, context.logger),
      context.config.apiGroup,
    ));
  // Every lease-bearing call passes its caller as the lease's holder: a lease is bound to the principal
  // that claimed it, so another principal's (the admin's too) presenting its id is refused like a wrong id.
  // Every call was authorized by the chain as a non-resource SubjectAccessReview (route table:
  // nonResourcePath), so RBAC (nonResourceURLs) decides who may call what, and a refused caller
  // reaches neither the database nor the cluster (nor has its input read).
  const leases = () => context.runs.service('leases');
  // The same resolution as the variables route: what the controller can read is what is masked. A
  // deployment with no cluster configured at all (not one unreachable for now) answers the variables
  // route 503 for good: it handed out no value, so there is nothing to mask.
  const sensitiveValues = async (run: Run): Promise<SensitiveValue[]> => {
    if (!(await context.cluster()).configured) return [];
    return (await resolveRunVariables(await clusterObjects(), run.project, run.workspace))
      .filter((variable) => variable.sensitive)
      .map(({ name, value }) => ({ name, value }));
  };
  // The RunTasks a plan the controller holds is checked by once it has succeeded (issue 48, post_plan): finish
  // records their pending results with the success. A run the caller does not hold gets none: finish answers it
  // (a retry of a success already recorded, or the refusal).
  const postPlanTasks = async (runId: string, leaseId: string, controller: LeaseHolder) => {
    const held = await (await leases()).heldRun(runId, leaseId, controller).catch((error: unknown) => {
      if (error instanceof CatalogueError) return undefined;
      throw error;
    });
    if (held?.type !== 'plan' || !(await context.cluster()).configured) return undefined;
    return postPlanTasksOf(await clusterObjects(), held, context.config.runTaskTimeoutMs);
  };
  const masking = runLogMasking(leases, () => context.runs.service('logChunks'), sensitiveValues, context.logger);

  // The scheduled trigger's route sweeps when every function is scaled to zero; while this process is up it
  // sweeps on its own timer too (OUTBOUND_SWEEP_INTERVAL).
  context.outbound.register(
    notificationReceivers(clusterObjects, {
      apiGroup: context.config.apiGroup,
      apiBaseUrl: context.config.apiBaseUrl,
      consoleUrl: context.outbound.settings.consoleUrl,
    }),
  );
  // Run tasks' requests are a family of the same engine (issue 48): built at each attempt with a fresh token.
  const taskResults = () => context.runs.service('taskResults');
  context.outbound.register(
    runTaskReceivers(
      taskResults,
      new RunTaskRequests(
        clusterObjects,
        taskResults,
        {
          apiGroup: context.config.apiGroup,
          apiBaseUrl: context.config.apiBaseUrl,
          consoleUrl: context.outbound.settings.consoleUrl,
        },
        () => context.runs.service('planJson'),
      ),
    ),
  );
  // Rollouts and Projects change in the cluster: every sweep first records the events of their changes (issue 47).
  context.outbound.registerSource(new ClusterEventReconciler(clusterObjects));
  context.outbound.sweepInBackground();

  const handlers: RouteHandlers<'internal'> = {
    listRunsInPhase: async (request) => {
      const { phase, ...page } = request.input.query();
      const records = await context.runs.service('records');
      return jsonResponse(200, await records.listUnfinishedRuns({ phase, ...pageOf(page) }));
    },
    claimRun: async (request) => {
      const { leaseSeconds, ...filter } = request.input.body();
      // Runs whose tasks all answered, or ran out of time, move on first (issue 48): the controller's poll
      // keeps the gate going whatever else does.
      const gate = await taskResults();
      await gate.settle();
      const claimed = await (await leases()).claim(
        runPrincipal(request.principal),
        leaseSeconds * 1000,
        filter,
        (lapsed) =>
          noteForAudit(request, LAPSED_LEASES_ANNOTATION, lapsed.map(({ id, phase }) => `${id}=${phase}`).join(',')),
      );
      if (!claimed) return { status: 204, headers: { 'cache-control': 'no-store' }, body: undefined };
      noteForAudit(request, RUN_ANNOTATION, claimed.run.id);
      const results = await gate.resultsOf(claimed.run.id);
      return jsonResponse(200, {
        ...claimed,
        unmaskedSensitiveValues: await masking.claimed(claimed),
        runTasks: { mayProceed: mayProceed(results), results },
      });
    },
    renewRunLease: async (request) => {
      const { leaseId, leaseSeconds } = request.input.body();
      return jsonResponse(
        200,
        await (await leases()).renew(request.params.run, leaseId, runPrincipal(request.principal), leaseSeconds * 1000),
      );
    },
    setRunPhase: async (request) => {
      const { leaseId, phase, message, hasChanges } = request.input.body();
      const controller = runPrincipal(request.principal);
      const finished = await (await leases()).finish(
        request.params.run,
        leaseId,
        controller,
        phase,
        message,
        hasChanges,
        phase === 'Succeeded' ? await postPlanTasks(request.params.run, leaseId, controller) : undefined,
      );
      masking.finished(request.params.run);
      return jsonResponse(200, finished);
    },
    appendRunLogs: async (request) => {
      const { leaseId, firstSeq, lines } = request.input.body();
      return jsonResponse(
        200,
        await masking.append(request.params.run, leaseId, runPrincipal(request.principal), firstSeq, lines),
      );
    },
    getRunVariables: async (request) => {
      const run = await (await leases()).heldRun(
        request.params.run,
        leaseHeader(request),
        runPrincipal(request.principal),
      );
      return jsonResponse(200, {
        variables: await resolveRunVariables(await clusterObjects(), run.project, run.workspace),
      });
    },
    putRunPlanJson: async (request) => {
      // Kept as the bytes sent (the chain checked them against the route's schema), within RUN_PLAN_JSON_MAX_BYTES.
      const maxBytes = context.config.runPlanJsonMaxBytes;
      if (request.body.byteLength > maxBytes) throw payloadTooLarge(maxBytes);
      noteForAudit(request, RUN_ANNOTATION, request.params.run);
      await (await context.runs.service('planJson')).store(
        request.params.run,
        leaseHeader(request),
        runPrincipal(request.principal),
        Buffer.from(request.body).toString('utf8'),
      );
      return { status: 204, headers: { 'cache-control': 'no-store' }, body: undefined };
    },
    sweepOutbound: async () => {
      // The scheduled trigger also ends the waits of run tasks past their deadline (issue 48) when no controller polls.
      await (await taskResults()).settle();
      return jsonResponse(200, await context.outbound.sweep());
    },
    internal: (request) => {
      throw notFound(`no internal route ${request.method} ${redactPath(request.path)}`);
    },
  };

  return {
    handlers: routeHandlers(handlers),
  };
}
