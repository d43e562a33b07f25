import type { AppContext } from '../../shared/server/app/app-context.ts';
import { KubernetesRestClient } from '../../shared/base/kubernetes/kubernetes-rest-client.ts';
import { ClusterObjects } from '../../shared/domain/resources/cluster-objects.ts';
import { ClusterEventReconciler } from '../../shared/domain/cluster-events/cluster-event-reconciler.ts';
import type { PlatformObject } from '../../shared/contract/kinds/platform-object.ts';
import {
  PLATFORM_KINDS,
  PROJECT,
  ROLLOUT,
  VARIABLE_SET,
  WORKSPACE,
  type PlatformKind,
} from '../../shared/contract/kinds/platform-kinds.ts';
import {
  functionModule,
  type FunctionHandlers,
  type HandlerRequest,
} from '../../shared/server/runtime/function-definition.ts';
import { routeHandlers, type RouteHandlers } from '../../shared/server/runtime/typed-handlers.ts';
import { notificationHandlers } from './handlers/notification-handlers.ts';
import { jsonResponse } from '../../shared/base/http/api-request.ts';
import { runPrincipal } from '../../shared/domain/runs/run-principal.ts';
import { customResourceHandlers } from './handlers/custom-resource-handlers.ts';
import { kubernetesApiHandlers } from './handlers/kubernetes-api-handlers.ts';
import { approvalPolicyWrites, projectWrites } from './kinds/project-writes.ts';
import { plainWrites, type ResourceWrites, type Writer } from './kinds/resource-writes.ts';
import { rolloutWrites } from './kinds/rollout-writes.ts';
import { rolloutHandlers } from './handlers/rollout-handlers.ts';
import { runHandlers } from './handlers/run-handlers.ts';
import { runTaskHandlers } from './handlers/run-task-handlers.ts';
import type { TaskResultTokens } from '../../shared/server/runtime/filters/authentication.ts';
import { auditHandlers } from './handlers/audit-handlers.ts';
import { tokenHandlers } from './handlers/token-handlers.ts';
import { accessReviewHandlers } from './handlers/access-review-handlers.ts';
import type { SubjectRulesReader } from '../../shared/authz/subject-rules.ts';
import type { KubeConfig } from '@kubernetes/client-node';
import { runWorkspaceResolver } from '../../shared/domain/runs/run-workspace-resolver.ts';
import { RoutedPathReview } from './handlers/routed-path-review.ts';
import { variableSetWrites } from './kinds/variable-set-writes.ts';
import { workspaceWrites } from './kinds/workspace-writes.ts';
import { parseRequestBody } from './kinds/resource-body.ts';

/** The resources function: its facts and its factory (shared/server/runtime/function-definition.ts, FunctionModule). */
/** The services of the app context the resources function uses, and may use. */
const RESOURCES_SERVICES = [
  'auditStore',
  'authenticator',
  'authorizer',
  'cluster',
  'config',
  'logger',
  'metrics',
  'projectTokens',
  'routes',
  'runs',
  'streamSessions',
] as const;

export const resourcesFunction = functionModule({
  services: RESOURCES_SERVICES,
  name: 'resources',
  // Its handlers call the cluster, but /healthz and the admin's requests do not: it connects (and
  // loads the Kubernetes client) when a request or /readyz first needs the cluster.
  cluster: 'on-first-use',
  runHistory: true,
  maintainsRunHistory: true,
  readiness: ['platform-crds-served'],
  create: (context) => createResourcesFunction(context),
});

/**
 * Records a Rollout's stage events right after the approve and withdraw routes wrote it (issue 47), so they do not
 * wait for the next sweep's pass; best effort: the sweep records whatever this did not (a failure is logged).
 */
function stageEventsRecorder(
  context: Pick<AppContext, 'logger' | 'runs'>,
  objects: ClusterObjects,
): (rollout: PlatformObject, stage: string) => Promise<void> {
  const reconciler = new ClusterEventReconciler(async () => objects);
  return async (rollout, stage) => {
    try {
      await reconciler.recordRollout(context.runs.database, rollout, stage);
    } catch (error) {
      context.logger.warn('stage events not recorded after the write; the next outbound sweep records them', {
        detail: error instanceof Error ? error.message : String(error),
      });
    }
  };
}

/** The resources function: Kubernetes-style REST for the platform's kinds and the run records. */
export function createResourcesFunction(
  context: Pick<AppContext, (typeof RESOURCES_SERVICES)[number]>,
): FunctionHandlers {
  const kubeConfig = async () => (await context.cluster()).kubeConfig;
  const rest = new KubernetesRestClient(kubeConfig, context.logger, (verb, seconds) =>
    context.metrics.clusterCall(verb, seconds),
  );
  const objects = new ClusterObjects(rest, context.config.apiGroup);
  // A Rollout's and a Workspace's writes judge approvals by who writes (issues 37, 45): made per request; the others' once.
  const writesOf = (kind: PlatformKind): ((writer: Writer) => ResourceWrites) => {
    if (kind === ROLLOUT) return (writer) => rolloutWrites(objects, writer);
    if (kind === WORKSPACE) return (writer) => workspaceWrites(objects, writer);
    if (kind === PROJECT) {
      const projects = projectWrites(objects, context.config.projectSecretsAccess);
      return (writer) => approvalPolicyWrites(objects, projects, writer);
    }
    const writes = kind === VARIABLE_SET ? variableSetWrites(objects) : plainWrites(objects, kind);
    return () => writes;
  };
  // Each watch holds a watch of the cluster under the server's own credentials: capped per principal like
  // run-log streams (kubectl holds one per `get -w`), and ended with the credential that opened it.
  const watchSessions = context.streamSessions({
    kind: 'watch',
    max: context.config.maxWatchesPerPrincipal,
    streams: 'watches',
    setting: 'MAX_WATCHES_PER_PRINCIPAL',
    reason: 'TooManyWatches',
  });
  const authorizationResolvers = { runWorkspace: runWorkspaceResolver(() => context.runs.service('records')) };
  const routedPaths = new RoutedPathReview(
    context.routes,
    context.authorizer,
    context.config.apiGroup,
    authorizationResolvers,
  );
  const declared: RouteHandlers<'resources'> = {
    ...runHandlers(context, objects),
    ...runTaskHandlers(context),
    ...rolloutHandlers(objects, stageEventsRecorder(context, objects)),
    ...notificationHandlers(context, objects),
    ...auditHandlers(context),
    ...tokenHandlers(context, objects),
    ...accessReviewHandlers(context, rbacRulesOnFirstUse(kubeConfig, context), routedPaths),
    ...kubernetesApiHandlers(objects),
    whoAmI: (request) =>
      jsonResponse(200, { type: request.principal.type, name: runPrincipal(request.principal).principal }),
  };
  // The kinds' routes are generated from PLATFORM_KINDS; the core handler checks at start that each has its handler.
  const handlers = Object.assign(
    {},
    ...PLATFORM_KINDS.map((kind) => customResourceHandlers({ objects, kind, writes: writesOf(kind), watchSessions })),
    routeHandlers(declared),
  );
  return { handlers, authorizationResolvers, auditRequestObject, taskResultTokens: taskResultTokens(context) };
}

/**
 * The cluster's RBAC rules, read through the Kubernetes client's typed RBAC API: loaded with the
 * client when a review first needs them (the admin's never does).
 */
function rbacRulesOnFirstUse(
  kubeConfig: () => Promise<KubeConfig>,
  context: Pick<AppContext, 'logger'>,
): SubjectRulesReader {
  let reader: Promise<SubjectRulesReader> | undefined;
  return {
    async rulesFor(users, namespace) {
      reader ??= Promise.all([kubeConfig(), import('../../shared/authz/rbac-rules.ts')]).then(
        ([config, { RbacRulesReader }]) => new RbacRulesReader(config, context.logger),
        (error: unknown) => {
          // Forget the failure (the cluster not reachable yet) so that the next review tries again.
          reader = undefined;
          throw error;
        },
      );
      return (await reader).rulesFor(users, namespace);
    },
  };
}

/**
 * The body an audit event at the `Request` level records: a Project's, Workspace's or Rollout's as
 * sent. A VariableSet's never (it may carry sensitive values), nor any other route's (a controller's
 * log lines, a run's variables).
 */
function auditRequestObject(request: HandlerRequest): unknown {
  const kind = request.route.resource?.kind;
  if (kind === undefined || kind === VARIABLE_SET.kind) return undefined;
  try {
    return parseRequestBody(request);
  } catch {
    return undefined;
  }
}

/** A run task's access token as the principal of its task result (issue 48), while it is current. */
function taskResultTokens(context: Pick<AppContext, 'runs'>): TaskResultTokens {
  return async (token) => {
    const holder = await (await context.runs.service('taskResults')).holderOf(token);
    return (
      holder && {
        type: 'runtask',
        name: `runtask:${holder.project}/${holder.task}`,
        taskResult: holder.taskResult,
        run: holder.run,
        project: holder.project,
        workspace: holder.workspace,
        expiresAt: holder.expiresAt,
      }
    );
  };
}
