// Plans whose RunTasks run after the plan (issue 48, the `post_plan` stage): a Workspace of its own with one RunTask
// at post_plan calling the test's task server, and a plan of it run to Succeeded through the controller's real path
// (claim, then the phase route), which is when the platform asks the task.
import { expect } from 'vitest';
import {
  API,
  TEAM_PROJECT,
  callAs,
  expectStatus,
  runTaskObject,
  type Platform,
  workspaceObject,
} from './platform-fixture.ts';

export interface PostPlanRuns {
  /** A Workspace of its own (`<prefix>-<n>`) with one RunTask (`<workspace>-check`) at post_plan only. */
  workspaceWithPostPlanTask(enforcement: 'advisory' | 'mandatory'): Promise<{ workspace: string; task: string }>;
  /** A plan run of `workspace` started by the admin, claimed by the controller and reported Succeeded: the answer. */
  succeededPlan(workspace: string): Promise<{ id: string; phase: string }>;
}

export function postPlanRuns(platform: () => Platform, taskUrl: () => string, prefix: string): PostPlanRuns {
  const admin = callAs(platform, 'admin');
  const controller = callAs(platform, 'controller');
  let workspaces = 0;
  return {
    async workspaceWithPostPlanTask(enforcement) {
      const workspace = `${prefix}-${++workspaces}`;
      const task = `${workspace}-check`;
      await admin('POST', `${API}/namespaces/${TEAM_PROJECT}/workspaces`, workspaceObject(workspace)).then(
        expectStatus(201),
      );
      await admin(
        'POST',
        `${API}/namespaces/${TEAM_PROJECT}/runtasks`,
        runTaskObject(task, { url: taskUrl(), stages: ['post_plan'], enforcement, workspaces: [workspace] }),
      ).then(expectStatus(201));
      return { workspace, task };
    },
    async succeededPlan(workspace) {
      const run = await admin('POST', `/api/v1alpha1/projects/${TEAM_PROJECT}/workspaces/${workspace}/runs`, {
        type: 'plan',
        message: 'plan to be checked',
      }).then(expectStatus(201));
      // No task at pre_plan: the plan is Pending at once, for the controller.
      expect(run.phase).toBe('Pending');
      const claimed = await controller('POST', '/internal/runs/claim', { project: TEAM_PROJECT, workspace }).then(
        expectStatus(200),
      );
      expect(claimed.run.id).toBe(run.id);
      return controller('POST', `/internal/runs/${run.id}/phase`, {
        leaseId: claimed.lease.id,
        phase: 'Succeeded',
        hasChanges: true,
      }).then(expectStatus(200));
    },
  };
}
