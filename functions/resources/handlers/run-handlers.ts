import type { AppContext } from '../../../shared/server/app/app-context.ts';
import { apiError } from '../../../shared/base/http/error-catalogue.ts';
import { PLAN_RUN_ANNOTATION, RUN_ANNOTATION, noteForAudit } from '../../../shared/domain/audit/audit-annotations.ts';
import { jsonResponse } from '../../../shared/base/http/api-request.ts';
import type { ClusterObjects } from '../../../shared/domain/resources/cluster-objects.ts';
import { WORKSPACE } from '../../../shared/contract/kinds/platform-kinds.ts';
import {
  applyRequirement,
  judgeDirectApply,
  judgePlanApproval,
  judgePlanWithdrawal,
} from '../../../shared/domain/approvals/apply-approval-judge.ts';
import { approverGroups, approverName } from '../../../shared/domain/approvals/approval-caller.ts';
import { isSucceededPlan } from '../../../shared/domain/runs/records/plan-approvals.ts';
import { gatingProject } from '../../../shared/domain/approvals/project-gates.ts';
import type { PlatformObject } from '../../../shared/contract/kinds/platform-object.ts';
import { planBindingOf } from '../../../shared/domain/approvals/plan-binding.ts';
import { pageOf } from '../../../shared/domain/runs/records/page-query.ts';
import { runPrincipal } from '../../../shared/domain/runs/run-principal.ts';
import {
  authorizedRun,
  authorizedRunScope,
  authorizedWorkspace,
} from '../../../shared/domain/runs/run-workspace-resolver.ts';
import type { DeclaredRoute } from '../../../shared/contract/routes/route-table.ts';
import type { RouteHandlers, RouteRequest } from '../../../shared/server/runtime/typed-handlers.ts';
import type { Run } from '../../../shared/domain/runs/run.ts';
import { authorizeOverride } from '../../../shared/domain/approvals/time-gate-enforcement.ts';
import type { RunPage } from '../../../shared/domain/runs/records/run-records.ts';
import { tasksToAwait } from '../../../shared/domain/runs/tasks/run-task-objects.ts';
import { stageOf, type TasksToAwait } from '../../../shared/domain/runs/tasks/run-task-protocol.ts';

type RunRoute<Id extends string> = Extract<DeclaredRoute, { operationId: Id }>;

/**
 * The run history routes under `/api/v1alpha1/projects/{project}/`. A Project's runs live in its
 * namespace, so each is authorized on `workspaces/runs` there, by the chain as the route table
 * declares (a run by id on its Workspace); a handler runs only once the caller was allowed, so a
 * denied request leaves nothing behind. Each reads and writes the Project, Workspace or run the
 * decision names, not the path again.
 */
export function runHandlers(context: Pick<AppContext, 'config' | 'runs'>, objects: ClusterObjects) {
  /** The Workspace a new run starts on: 404 when it is gone, 409 while it is suspended. */
  const startableWorkspace = async (
    project: string,
    workspace: string,
    deadline: RouteRequest<RunRoute<'startRun'>>['deadline'],
  ): Promise<PlatformObject> => {
    const found = await objects.find<PlatformObject>(
      objects.platformPath(WORKSPACE, { namespace: project, name: workspace }),
      deadline,
    );
    if (!found) throw apiError('WorkspaceNotFound', `workspace "${workspace}" not found in project "${project}"`);
    if (found.spec?.suspend === true)
      throw apiError('WorkspaceSuspended', `workspace "${workspace}" is suspended (spec.suspend); no new runs start`);
    return found;
  };
  /**
   * Runs as these routes answer them: a succeeded plan says whether it may still be applied (issue 44, item 15),
   * and its approvals against what the Project's policy asks of its Workspace's applies (issue 45, item 2: the
   * Project read once per answer, and only for an answer with such a plan; the runs are all of one Project).
   */
  const answered = async (runs: Run[], deadline?: AbortSignal) => {
    const plan = runs.find(isSucceededPlan);
    const project = plan ? await gatingProject(objects, plan.project, deadline) : undefined;
    return (await context.runs.service('planApprovals')).withPlanApproval(
      runs,
      context.config.planApprovalMaxAgeMs,
      (workspace) => applyRequirement(project, workspace),
      deadline,
    );
  };
  const answeredRun = async (run: Run, deadline?: AbortSignal) => (await answered([run], deadline))[0]!;
  const answeredPage = async (page: RunPage, deadline?: AbortSignal) => ({
    ...page,
    items: await answered(page.items, deadline),
  });
  /** The run tasks a new run of `workspace` waits for at its stage (issue 48); none: it is `Pending` at once. */
  const tasksOf = async (
    project: string,
    workspace: PlatformObject,
    run: Pick<Run, 'type'>,
    deadline?: AbortSignal,
  ): Promise<{ tasks?: TasksToAwait }> => {
    const tasks = await tasksToAwait(
      objects,
      project,
      workspace,
      stageOf(run),
      context.config.runTaskTimeoutMs,
      deadline,
    );
    return tasks.tasks.length > 0 ? { tasks } : {};
  };
  const locationOf = (run: Run) => `/api/v1alpha1/projects/${encodeURIComponent(run.project)}/runs/${run.id}`;
  const created = async (request: { auditAnnotations?: Record<string, string>; deadline?: AbortSignal }, run: Run) => {
    noteForAudit(request, RUN_ANNOTATION, run.id);
    return jsonResponse(201, await answeredRun(run, request.deadline), { location: locationOf(run) });
  };
  return {
    startRun: async (request: RouteRequest<RunRoute<'startRun'>>) => {
      const { project, workspace } = authorizedWorkspace(request);
      const { override, ...run } = request.input.body();
      if (override && run.type !== 'apply')
        throw apiError('InvalidRun', "override: only an apply run is gated by the Project's windows and freeze");
      await authorizeOverride(request, override);
      const found = await startableWorkspace(project, workspace, request.deadline);
      if (run.type === 'apply' && found.spec?.allowApplyWithoutPlan !== true)
        throw apiError(
          'ApplyNeedsPlan',
          `workspace "${workspace}" applies only reviewed plans (spec.allowApplyWithoutPlan is not true): start a plan run, then approve that plan for apply`,
        );
      const overridden =
        run.type === 'apply'
          ? judgeDirectApply(
              request,
              await gatingProject(objects, project, request.deadline),
              { project, workspace },
              override,
            )
          : undefined;
      // A plan records the Workspace object, spec and VariableSets it is planned for (issue 45).
      const plannedFor =
        run.type === 'plan' ? await planBindingOf(objects, project, found, request.deadline) : undefined;
      const records = await context.runs.service('records');
      const principal = runPrincipal(request.principal);
      return created(
        request,
        await records.createRun(
          {
            project,
            workspace,
            ...run,
            ...principal,
            ...(plannedFor ? { plannedFor } : {}),
            // The override that let the apply through is recorded on it (issue 45, item 5).
            ...(overridden ? { override: { by: principal.principal, ...overridden } } : {}),
            ...(await tasksOf(project, found, run, request.deadline)),
          },
          request.deadline,
        ),
      );
    },
    applyPlan: async (request: RouteRequest<RunRoute<'applyPlan'>>) => {
      const plan = authorizedRun(request);
      const { message, override } = request.input.body();
      await authorizeOverride(request, override);
      const found = await startableWorkspace(plan.project, plan.workspace, request.deadline);
      const project = await gatingProject(objects, plan.project, request.deadline);
      const overridden = judgePlanApproval(request, project, plan, override);
      const workspace = await planBindingOf(objects, plan.project, found, request.deadline);
      const planApprovals = await context.runs.service('planApprovals');
      const approver = runPrincipal(request.principal);
      const { apply } = await planApprovals.approveForApply(
        {
          project: plan.project,
          planRun: plan.id,
          ...approver,
          ...(message !== undefined ? { message } : {}),
          maxAgeMs: context.config.planApprovalMaxAgeMs,
          workspace,
          ...(overridden ? { override: { by: approver.principal, ...overridden } } : {}),
          ...(await tasksOf(plan.project, found, { type: 'apply' }, request.deadline)),
          // Issue 45, item 2: the approval is recorded with the approver's groups; the apply starts once they meet this.
          groups: approverGroups(request.principal),
          requirement: applyRequirement(project, plan.workspace),
        },
        request.deadline,
      );
      noteForAudit(request, PLAN_RUN_ANNOTATION, plan.id);
      if (apply) return created(request, apply);
      // Recorded, and more approvals are needed: the plan as it stands now, its approvals and who still has to.
      return jsonResponse(202, await answeredRun(plan, request.deadline), { location: locationOf(plan) });
    },
    withdrawPlanApproval: async (request: RouteRequest<RunRoute<'withdrawPlanApproval'>>) => {
      const plan = authorizedRun(request);
      const approver = request.input.body().approver ?? approverName(request.principal);
      judgePlanWithdrawal(request, plan, approver);
      await (await context.runs.service('planApprovals')).withdrawApproval(
        { project: plan.project, planRun: plan.id, approver },
        request.deadline,
      );
      noteForAudit(request, PLAN_RUN_ANNOTATION, plan.id);
      return jsonResponse(200, await answeredRun(plan, request.deadline));
    },
    listWorkspaceRuns: async (request: RouteRequest<RunRoute<'listWorkspaceRuns'>>) => {
      const { project, workspace } = authorizedWorkspace(request);
      const records = await context.runs.service('records');
      return jsonResponse(
        200,
        await answeredPage(
          await records.listRuns({ project, workspace, ...pageOf(request.input.query()) }, request.deadline),
          request.deadline,
        ),
      );
    },
    listProjectRuns: async (request: RouteRequest<RunRoute<'listProjectRuns'>>) => {
      const records = await context.runs.service('records');
      return jsonResponse(
        200,
        await answeredPage(
          await records.listRuns(
            { project: authorizedRunScope(request).project, ...pageOf(request.input.query()) },
            request.deadline,
          ),
          request.deadline,
        ),
      );
    },
    getRun: async (request: RouteRequest<RunRoute<'getRun'>>) =>
      jsonResponse(200, await answeredRun(authorizedRun(request), request.deadline)),
    cancelRun: async (request: RouteRequest<RunRoute<'cancelRun'>>) => {
      const run = authorizedRun(request);
      const records = await context.runs.service('records');
      return jsonResponse(
        200,
        await answeredRun(
          await records.requestCancel(run.project, run.id, runPrincipal(request.principal).principal, request.deadline),
          request.deadline,
        ),
      );
    },
  } satisfies Partial<RouteHandlers<'resources'>>;
}
