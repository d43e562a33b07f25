// Issue 45, items 3 and 5, with the real kubectl (1.33) over HTTPS and the plugin on PATH: `kubectl platform`
// acts as an incident commander with `--override-reason` on every command a Project's approval windows or freeze
// can refuse (approving a stage, approving a plan for apply, starting an apply), shows which window is open and when
// the next opens (`projects windows`), and `runs get` shows the override the run records; `kubectl auth can-i
// override` answers truly. The windows are ranges around the test's own clock: nothing waits on time.
import { writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { V1PolicyRule } from '@kubernetes/client-node';
import { ControllerClient } from '../../../infra/development/controller/reference-controller.ts';
import { kubectlWith } from '../../support/kubectl-cli.ts';
import {
  API,
  GROUP,
  TEAM_PROJECT,
  bindRole,
  callAs,
  expectStatus,
  usePlatform,
  workspaceObject,
} from '../../support/platform-fixture.ts';
import { execCredentialKubeconfig, usePluginUser } from '../../support/plugin-cli.ts';

const platform = usePlatform({}, { tls: true });
const user = usePluginUser(platform);
const admin = callAs(platform, 'admin');
const RUNS = `/api/v1alpha1/projects/${TEAM_PROJECT}`;
const HOUR = 3_600_000;
const REASON = 'hotfix for incident 4711';
const FREEZE = { active: true, reason: 'incident 4711', since: '2026-12-01T00:00:00Z' };

const setPolicy = (approvalPolicy: unknown) =>
  admin(
    'PATCH',
    `${API}/projects/${TEAM_PROJECT}`,
    { spec: { approvalPolicy } },
    { 'content-type': 'application/merge-patch+json' },
  ).then(expectStatus(200));

let workspaces = 0;
async function newWorkspace(): Promise<string> {
  const name = `override-ws-${++workspaces}`;
  await admin('POST', `${API}/namespaces/${TEAM_PROJECT}/workspaces`, workspaceObject(name)).then(expectStatus(201));
  return name;
}

/** `run/<id> created (...)`: the id. */
function createdRunId(text: string): string {
  const id = /run\/([0-9a-f-]{36}) created/.exec(text)?.[1];
  if (!id) throw new Error(`no "run/<id> created" in: ${text}`);
  return id;
}

describe('Issue 45, item 3: kubectl platform projects windows shows the freeze, which window is open now and when the next opens', () => {
  it('a frozen Project with an open deny range and a later allow range', async () => {
    const now = Date.now();
    const until = new Date(now + HOUR).toISOString();
    const opens = new Date(now + 2 * HOUR).toISOString();
    await setPolicy({
      freeze: FREEZE,
      windows: [
        {
          name: 'maintenance',
          kind: 'deny',
          start: new Date(now - HOUR).toISOString(),
          end: until,
          appliesTo: { rollouts: ['*'] },
        },
        {
          name: 'later',
          kind: 'allow',
          start: opens,
          end: new Date(now + 3 * HOUR).toISOString(),
          appliesTo: { applies: ['network'] },
        },
      ],
    });
    try {
      const shown = await user().run(['projects', 'windows', TEAM_PROJECT]);
      expect(shown.code, shown.stderr).toBe(0);
      const lines = shown.stdout.trimEnd().split('\n');
      expect(lines[0]).toBe('Freeze:          frozen since 2026-12-01T00:00:00Z: incident 4711');
      expect(lines.slice(2).map((line) => line.split(/\s{3,}/))).toEqual([
        ['WINDOW', 'KIND', 'APPLIES TO', 'STATE'],
        ['maintenance', 'deny', 'rollouts: *', `open until ${until}`],
        ['later', 'allow', 'applies: network', `opens at ${opens}`],
      ]);
      const json = JSON.parse((await user().run(['projects', 'windows', TEAM_PROJECT, '-o', 'json'])).stdout);
      expect(json.freeze).toEqual(FREEZE);
      expect(json.windows[0].state).toEqual({ open: true, until });
    } finally {
      await setPolicy(null);
    }
  });
});

describe('Issue 45, items 3 and 5: --override-reason acts through a freeze on every command it can refuse, and the run records it', () => {
  it('rollouts approve, runs start --apply and runs approve: refused while frozen, done with --override-reason; runs get shows the override', async () => {
    await setPolicy({ freeze: FREEZE });
    try {
      await admin('POST', `${API}/namespaces/${TEAM_PROJECT}/rollouts`, {
        apiVersion: `${GROUP}/v1alpha1`,
        kind: 'Rollout',
        metadata: { name: 'frozen-rollout' },
        spec: { revision: 'r1', stages: [{ workspace: 'prod', approval: { required: true } }] },
      }).then(expectStatus(201));
      const refused = await user().run(['rollouts', 'approve', 'frozen-rollout', '--stage', 'prod']);
      expect(refused.code).toBe(3);
      expect(refused.stderr).toMatch(/^Error from server \(ProjectFrozen\): .*incident 4711/);
      // The plugin names its flag where the server names the API's field.
      expect(refused.stderr).toContain('repeat the command with --override-reason');
      const approved = await user().run([
        'rollouts',
        'approve',
        'frozen-rollout',
        '--stage',
        'prod',
        '--override-reason',
        REASON,
      ]);
      expect(approved.code, approved.stderr).toBe(0);
      const rollout = await admin('GET', `${API}/namespaces/${TEAM_PROJECT}/rollouts/frozen-rollout`).then(
        expectStatus(200),
      );
      expect(rollout.status.stages[0].approval.override).toEqual({ reason: REASON, overrode: 'ProjectFrozen' });

      const workspace = await newWorkspace();
      expect((await user().run(['runs', 'start', workspace, '--apply'])).stderr).toMatch(
        /^Error from server \(ProjectFrozen\)/,
      );
      const started = await user().run(['runs', 'start', workspace, '--apply', '--override-reason', REASON]);
      expect(started.code, started.stderr).toBe(0);
      const shown = await user().run(['runs', 'get', createdRunId(started.stdout)]);
      expect(shown.stdout.trimEnd().split('\n').at(-1)).toBe(`Overridden by admin (ProjectFrozen): ${REASON}`);

      // A plan is never gated: an override of one is a usage error, before anything is sent.
      const planOverride = await user().run(['runs', 'start', workspace, '--plan', '--override-reason', REASON]);
      expect(planOverride.code).toBe(4);
      expect(planOverride.stderr).toContain('--override-reason goes with --apply only');
      expect((await user().run(['runs', 'start', workspace, '--apply', '--override-reason', ' '])).code).toBe(4);

      const planned = await newWorkspace();
      const plan = await admin('POST', `${RUNS}/workspaces/${planned}/runs`, { type: 'plan' }).then(expectStatus(201));
      const controller = new ControllerClient(platform().gateway.url, platform().tokens.controller);
      const claimed = await controller.claim(60, { project: TEAM_PROJECT, workspace: planned });
      await controller.finish(claimed!.run.id, claimed!.lease.id, 'Succeeded', 'planned');
      expect((await user().run(['runs', 'approve', plan.id])).stderr).toMatch(/^Error from server \(ProjectFrozen\)/);
      const applied = await user().run(['runs', 'approve', plan.id, '--override-reason', REASON, '-o', 'json']);
      expect(applied.code, applied.stderr).toBe(0);
      expect(JSON.parse(applied.stdout)).toMatchObject({
        planRun: plan.id,
        override: { by: 'admin', reason: REASON, overrode: 'ProjectFrozen' },
      });
    } finally {
      await setPolicy(null);
    }
  }, 120_000); // eight plugin runs, each several seconds on a busy two-core machine
});

describe('Issue 45, item 5: `kubectl auth can-i override` answers truly (SelfSubjectAccessReview through the server)', () => {
  it('yes for the incident commander on rollouts and workspaces/runs, no for an approver without the verb', async () => {
    const roles: Record<string, V1PolicyRule[]> = {
      'can-i-commander': [
        { apiGroups: [GROUP], resources: ['rollouts', 'workspaces/runs'], verbs: ['get', 'approve', 'override'] },
      ],
      'can-i-approver': [{ apiGroups: [GROUP], resources: ['rollouts', 'workspaces/runs'], verbs: ['get', 'approve'] }],
    };
    const canI = async (who: string, args: string[]) => {
      const config = await execCredentialKubeconfig(user(), platform(), who, { namespace: TEAM_PROJECT });
      await writeFile(config.tokensFile, `${await platform().cluster.mintToken(who)}\n`);
      const answer = await kubectlWith(config.kubeconfig, user().home).result(['auth', 'can-i', ...args]);
      const [word] = answer.stdout.trim().split(' ');
      expect(answer.code, answer.stderr).toBe(word === 'yes' ? 0 : 1);
      return word;
    };
    for (const [who, rules] of Object.entries(roles)) {
      await platform().cluster.createServiceAccount(who);
      await bindRole(platform().cluster, TEAM_PROJECT, who, rules, who);
    }
    expect(await canI('can-i-commander', ['override', `rollouts.${GROUP}`])).toBe('yes');
    expect(await canI('can-i-commander', ['override', `rollouts.${GROUP}/web`])).toBe('yes');
    expect(await canI('can-i-commander', ['override', `workspaces.${GROUP}/network`, '--subresource=runs'])).toBe(
      'yes',
    );
    expect(await canI('can-i-approver', ['override', `rollouts.${GROUP}`])).toBe('no');
    expect(await canI('can-i-approver', ['override', `workspaces.${GROUP}/network`, '--subresource=runs'])).toBe('no');
    expect(await canI('can-i-approver', ['approve', `rollouts.${GROUP}`])).toBe('yes');
  });
});
