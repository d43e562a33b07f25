// Issue 39: `kubectl platform`, run by the real kubectl (1.33) finding the plugin on PATH, against the
// platform as `npm start` serves it (the local gateway, HTTPS, a real PostgreSQL, the emulator with the
// chart's RBAC, a real OpenID Provider). A reference controller claims the runs, appends their log
// lines and ends them, as the workspace controller does.
import { createServer, type Server, type Socket, connect } from 'node:net';
import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, runCli } from '../../support/kubectl-cli.ts';
import {
  API,
  GROUP,
  OTHER_PROJECT,
  TEAM_PROJECT,
  bindRole,
  callAs,
  expectStatus,
  runTaskObject,
  usePlatform,
  workspaceObject,
} from '../../support/platform-fixture.ts';
import { ENGINE_DELIVERY_ENV, useEngineDelivery } from '../../support/run-task-delivery.ts';
import {
  type RunTaskServer,
  sendCallback,
  startRunTaskServer,
  taskResultDocument,
} from '../../support/run-task-server.ts';
import { ControllerClient } from '../../../infra/development/controller/reference-controller.ts';
import { execCredentialKubeconfig, usePluginUser } from '../../support/plugin-cli.ts';

const platform = usePlatform(ENGINE_DELIVERY_ENV, { tls: true });
const user = usePluginUser(platform);
const admin = callAs(platform, 'admin');
// A run task server that takes each request and never answers: the test answers for it, with its token.
let taskServer: RunTaskServer;
const delivered = useEngineDelivery(platform, () => taskServer.received);
let controller: ControllerClient;

const WORKSPACES = ['network', 'dns', 'storage', 'queue', 'edge', 'cache', 'relayed'];

beforeAll(async () => {
  taskServer = await startRunTaskServer(undefined, () => platform().gateway.url);
  controller = new ControllerClient(platform().gateway.url, platform().tokens.controller);
  for (const name of WORKSPACES)
    await admin('POST', `${API}/namespaces/${TEAM_PROJECT}/workspaces`, workspaceObject(name)).then(expectStatus(201));
});

afterAll(async () => {
  await taskServer?.close();
});

/** Claims the Pending run of `workspace` as the controller: its id and lease. */
async function claim(workspace: string): Promise<{ runId: string; leaseId: string }> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const claimed = await controller.claim(60, { project: TEAM_PROJECT, workspace });
    if (claimed) return { runId: claimed.run.id, leaseId: claimed.lease.id };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no Pending run of ${workspace} to claim`);
}

/** `run/<id> created (...)`: the id. */
function createdRunId(text: string): string {
  const id = /run\/([0-9a-f-]{36}) created/.exec(text)?.[1];
  if (!id) throw new Error(`no "run/<id> created" in: ${text}`);
  return id;
}

describe('runs start, list and get: kubectl platform starts a run and shows it as kubectl shows objects', () => {
  it('starts a plan with its message, lists it in a kubectl table and prints it as JSON and YAML', async () => {
    const started = await user().run(['runs', 'start', 'network', '--plan', '-m', 'widen the subnet']);
    expect(started.code, started.stderr).toBe(0);
    const id = createdRunId(started.stdout);
    expect(started.stdout).toBe(`run/${id} created (plan of workspace network)\n`);
    const stored = await admin('GET', `/api/v1alpha1/projects/${TEAM_PROJECT}/runs/${id}`).then(expectStatus(200));
    expect(stored).toMatchObject({
      workspace: 'network',
      type: 'plan',
      phase: 'Pending',
      message: 'widen the subnet',
      principal: 'admin',
    });

    const listed = await user().run(['runs', 'list']);
    expect(listed.code, listed.stderr).toBe(0);
    const [header, ...rows] = listed.stdout.trimEnd().split('\n');
    expect(header!.split(/\s{3,}/)).toEqual(['RUN', 'WORKSPACE', 'TYPE', 'PHASE', 'AGE']);
    expect(rows.at(-1), listed.stdout).toMatch(new RegExp(`^${id}\\s{3}network\\s+plan\\s+Pending\\s+\\d+s$`));

    const wide = await user().run(['runs', 'list', '-o', 'wide', '--workspace', 'network']);
    expect(wide.stdout.split('\n')[0]!.split(/\s{3,}/)).toEqual([
      'RUN',
      'WORKSPACE',
      'TYPE',
      'PHASE',
      'AGE',
      'DURATION',
      'PRINCIPAL',
      'MESSAGE',
    ]);
    expect(wide.stdout).toMatch(new RegExp(`${id}.*<none>\\s+admin\\s+widen the subnet`));

    const json = await user().run(['runs', 'get', id, '-o', 'json']);
    expect(JSON.parse(json.stdout)).toEqual(stored);
    expect(json.stdout).toContain(`\n    "id": "${id}"`);
    const yaml = await user().run(['runs', 'get', id, '-o', 'yaml', '-n', TEAM_PROJECT]);
    expect(yaml.stdout).toContain(`id: ${id}\n`);
    expect((await user().run(['runs', 'list', '-o', 'name', '--workspace', 'network'])).stdout).toContain(
      `run/${id}\n`,
    );
  });

  it('runs list -w prints a row for a run that starts and again when it changes phase', async () => {
    const cli = user().start(['runs', 'list', '-w', '--workspace', 'queue']);
    await eventually(
      () => cli.stdout().startsWith('RUN'),
      () => cli.stdout() + cli.stderr(),
    );
    const id = createdRunId((await user().run(['runs', 'start', 'queue', '--plan'])).stdout);
    await eventually(
      () => new RegExp(`${id}\\s+queue\\s+plan\\s+Pending`).test(cli.stdout()),
      () => cli.stdout(),
    );
    expect((await user().run(['runs', 'cancel', id])).code).toBe(0);
    await eventually(
      () => new RegExp(`${id}\\s+queue\\s+plan\\s+Cancelled`).test(cli.stdout()),
      () => cli.stdout(),
    );
    cli.kill();
    expect(cli.stdout().match(/^RUN /gm)).toHaveLength(1);
  });

  it("says what is wrong in kubectl's words, with exit code 3 for the server's refusal and 4 for a wrong command line", async () => {
    const missing = await user().run(['runs', 'get', '0196f0c2-5d7e-7b61-9a4e-2f9d1e0c8a31']);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/^Error from server \(RunNotFound\): /);
    const noWorkspace = await user().run(['runs', 'start', 'nothing-here', '--plan']);
    expect(noWorkspace).toMatchObject({
      code: 3,
      stderr: expect.stringMatching(/^Error from server \(WorkspaceNotFound\): /),
    });
    const both = await user().run(['runs', 'start', 'network', '--plan', '--apply']);
    expect(both).toMatchObject({ code: 4, stderr: expect.stringContaining('give exactly one of --plan and --apply') });
    const unknown = await user().run(['runs', 'list', '--colour']);
    expect(unknown).toMatchObject({ code: 4, stderr: expect.stringContaining('error: unknown flag: --colour') });
    const format = await user().run(['runs', 'list', '-o', 'xml']);
    expect(format.stderr).toContain('unable to match a printer suitable for the output format "xml"');
    const context = await user().run(['runs', 'list', '--context', 'elsewhere']);
    expect(context).toMatchObject({ code: 4, stderr: 'error: context "elsewhere" does not exist\n' });
  });
});

describe("runs start --follow and runs logs -f: the log as the controller writes it, and the run's outcome as the exit code", () => {
  for (const [workspace, outcome, exitCode] of [
    ['dns', 'Succeeded', 0],
    ['storage', 'Failed', 1],
  ] as const) {
    it(`exits ${exitCode} when the run ${outcome}, having written every line once, colours stripped off a terminal`, async () => {
      const cli = user().start(['runs', 'start', workspace, '--plan', '--follow', '-m', 'ci']);
      const { runId, leaseId } = await claim(workspace);
      await controller.append(runId, leaseId, 1, ['Initializing...', '\u001b[32m+ resource "aws_vpc" "main"\u001b[0m']);
      await eventually(
        () => cli.stdout().includes('+ resource'),
        () => cli.stdout(),
      );
      await controller.append(runId, leaseId, 3, ['Plan: 1 to add, 0 to change, 0 to destroy.']);
      await controller.finish(runId, leaseId, outcome, `${outcome.toLowerCase()} by the controller`);
      expect(await cli.exited).toBe(exitCode);
      expect(cli.stdout()).toBe(
        'Initializing...\n+ resource "aws_vpc" "main"\nPlan: 1 to add, 0 to change, 0 to destroy.\n',
      );
      expect(cli.stderr()).toContain(`run/${runId} created (plan of workspace ${workspace})`);
      expect(cli.stderr()).toContain(`run/${runId} ${outcome}: ${outcome.toLowerCase()} by the controller`);
    });
  }

  it('exits 2 when the run is cancelled (runs cancel, then the controller stops it)', async () => {
    const started = await user().run(['runs', 'start', 'queue', '--plan']);
    const id = createdRunId(started.stdout);
    const cli = user().start(['runs', 'logs', id, '-f']);
    const { runId, leaseId } = await claim('queue');
    await controller.append(runId, leaseId, 1, ['Refreshing state...']);
    await eventually(
      () => cli.stdout().includes('Refreshing state...'),
      () => cli.stdout(),
    );
    const cancel = await user().run(['runs', 'cancel', id]);
    expect(cancel.stdout).toBe(`run/${id} cancel requested (Running: its controller stops it)\n`);
    expect((await controller.renew(runId, leaseId, 60)).cancelRequested).toBe(true);
    await controller.finish(runId, leaseId, 'Cancelled', "stopped at the user's request");
    expect(await cli.exited).toBe(2);
    expect(cli.stdout()).toBe('Refreshing state...\n');
  });

  it('runs logs without -f prints the lines written so far and exits 0 while the run goes on; colours stay on a terminal', async () => {
    const id = createdRunId((await user().run(['runs', 'start', 'edge', '--plan'])).stdout);
    const { runId, leaseId } = await claim('edge');
    await controller.append(runId, leaseId, 1, ['one', '\u001b[32mtwo\u001b[0m']);
    const printed = await user().run(['runs', 'logs', id]);
    expect(printed).toMatchObject({ code: 0, stdout: 'one\ntwo\n' });
    // On a terminal (`script` gives kubectl and the plugin one) the colours stay, unless --no-color.
    // (Not spawnSync: the server answering it runs in this process.)
    const onTerminal = (args: string) =>
      runCli('script', ['-qec', `kubectl platform runs logs ${id} ${args}`, '/dev/null'], {
        home: user().home,
        env: user().env(),
      });
    expect((await onTerminal('')).stdout).toContain('one\r\n\u001b[32mtwo\u001b[0m\r\n');
    expect((await onTerminal('--no-color')).stdout).toContain('one\r\ntwo\r\n');
    await controller.finish(runId, leaseId, 'Succeeded', 'done');
  });

  it('a Pending run is cancelled at once', async () => {
    const id = createdRunId((await user().run(['runs', 'start', 'cache', '--plan'])).stdout);
    expect(await user().run(['runs', 'cancel', id])).toMatchObject({ code: 0, stdout: `run/${id} cancelled\n` });
    expect(
      await admin('GET', `/api/v1alpha1/projects/${TEAM_PROJECT}/runs/${id}`).then(expectStatus(200)),
    ).toMatchObject({
      phase: 'Cancelled',
      cancelRequestedBy: 'admin',
    });
  });
});

describe('runs logs -f resumes by itself after the server drops the stream (Last-Event-ID)', () => {
  /** A TCP relay in front of the gateway whose open connections can be cut, as a restarting proxy cuts them. */
  let relay: Server;
  const sockets = new Set<Socket>();
  let relayConfig = '';
  beforeAll(async () => {
    const target = new URL(platform().gateway.url);
    relay = createServer((incoming) => {
      const outgoing = connect(Number(target.port), target.hostname);
      sockets.add(incoming).add(outgoing);
      incoming.pipe(outgoing).pipe(incoming);
      incoming.on('error', () => outgoing.destroy());
      outgoing.on('error', () => incoming.destroy());
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    const port = (relay.address() as { port: number }).port;
    relayConfig = join(user().home, 'relay.kubeconfig');
    await writeFile(
      relayConfig,
      (await readFile(user().adminConfig, 'utf8')).replace(platform().gateway.url, `https://127.0.0.1:${port}`),
    );
  });
  afterAll(() => relay?.close());

  it('writes every line once, in order, across a cut connection, and exits with the outcome', async () => {
    const id = createdRunId(
      (await user().run(['runs', 'start', 'relayed', '--plan'], { kubeconfig: relayConfig })).stdout,
    );
    const cli = user().start(['runs', 'logs', id, '--follow'], { kubeconfig: relayConfig });
    const { runId, leaseId } = await claim('relayed');
    await controller.append(runId, leaseId, 1, ['line 1', 'line 2', 'line 3']);
    await eventually(
      () => cli.stdout().includes('line 3'),
      () => cli.stdout(),
    );
    for (const socket of sockets) socket.destroy();
    sockets.clear();
    await controller.append(runId, leaseId, 4, ['line 4', 'line 5']);
    await eventually(
      () => cli.stdout().includes('line 5'),
      () => cli.stdout(),
    );
    await controller.finish(runId, leaseId, 'Succeeded', 'applied');
    expect(await cli.exited).toBe(0);
    expect(cli.stdout()).toBe('line 1\nline 2\nline 3\nline 4\nline 5\n');
  });
});

describe('An OIDC user with a kubelogin-style exec credential plugin: allowed where RBAC allows, refused where it does not', () => {
  it("lists runs in the Project of its Role and is refused in another, in kubectl's words", async () => {
    const alice = await execCredentialKubeconfig(user(), platform(), 'alice', { namespace: TEAM_PROJECT });
    await writeFile(alice.tokensFile, `${platform().tokens.oidcUser}\n`);
    const started = await user().run(['runs', 'start', 'network', '--plan'], { kubeconfig: alice.kubeconfig });
    expect(started.code, started.stderr).toBe(0);
    const allowed = await user().run(['runs', 'list'], { kubeconfig: alice.kubeconfig });
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stdout).toMatch(new RegExp(`^RUN\\s+WORKSPACE[^]*${createdRunId(started.stdout)}`));
    const refused = await user().run(['runs', 'list', '-n', OTHER_PROJECT], { kubeconfig: alice.kubeconfig });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toBe(
      `Error from server (Forbidden): user "oidc:alice@example.com" (as ServiceAccount platform-system/team-a-developer) may not list workspaces/runs.${GROUP} in namespace "${OTHER_PROJECT}"\n`,
    );
    const start = await user().run(['runs', 'start', 'network', '--plan', '-n', OTHER_PROJECT], {
      kubeconfig: alice.kubeconfig,
    });
    expect(start.stderr).toMatch(
      /^Error from server \(Forbidden\): user "oidc:alice@example.com" .* may not create workspaces\/runs/,
    );
    // The plugin told the exec plugin what kubectl tells it.
    expect(JSON.parse((await readFile(alice.callsFile, 'utf8')).split('\n')[0]!)).toEqual({
      info: { apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', spec: { interactive: true } },
    });
  });

  it('when the ID token expires mid-stream, runs the exec plugin again and resumes the log where it stopped', async () => {
    const alice = await execCredentialKubeconfig(user(), platform(), 'alice-short', { namespace: TEAM_PROJECT });
    const shortLived = await platform().oidcLogin(8);
    await writeFile(alice.tokensFile, `${shortLived}\n${await platform().oidcLogin(3600)}\n`);
    const id = createdRunId((await user().run(['runs', 'start', 'dns', '--plan'])).stdout);
    const cli = user().start(['runs', 'logs', id, '-f'], { kubeconfig: alice.kubeconfig });
    const { runId, leaseId } = await claim('dns');
    await controller.append(runId, leaseId, 1, ['before the token expired']);
    await eventually(
      () => cli.stdout().includes('before'),
      () => cli.stdout() + cli.stderr(),
    );
    // Past the first token's exp (8 s) the server ends the stream with `expired`, and the plugin runs
    // the exec plugin a second time to resume: that second call is awaited, not the 8 s.
    const execCalls = () => readFileSync(alice.callsFile, 'utf8').trim().split('\n').length;
    await eventually(
      () => execCalls() >= 2,
      () => cli.stdout() + cli.stderr(),
    );
    await controller.append(runId, leaseId, 2, ['after the plugin gave a new token']);
    await controller.finish(runId, leaseId, 'Succeeded', 'planned');
    expect(await cli.exited).toBe(0);
    expect(cli.stdout()).toBe('before the token expired\nafter the plugin gave a new token\n');
    expect((await readFile(alice.callsFile, 'utf8')).trim().split('\n').length).toBeGreaterThanOrEqual(2);
  }, 40_000);
});

describe('rollouts get: the stages as a tree with their phases, approvals and the runs behind them', () => {
  const rollouts = `${API}/namespaces/${TEAM_PROJECT}/rollouts`;
  let appliedRun = '';
  beforeAll(async () => {
    const started = await admin('POST', `/api/v1alpha1/projects/${TEAM_PROJECT}/workspaces/cache/runs`, {
      type: 'plan',
    }).then(expectStatus(201));
    appliedRun = started.id;
    const { runId, leaseId } = await claim('cache');
    await controller.finish(runId, leaseId, 'Succeeded', 'applied');
    await admin('POST', rollouts, {
      apiVersion: `${GROUP}/v1alpha1`,
      kind: 'Rollout',
      metadata: { name: 'cache-v2' },
      spec: {
        revision: 'v2.0.0',
        description: 'a bigger cache',
        stages: [{ workspace: 'cache' }, { workspace: 'edge', requireApproval: true }],
      },
    }).then(expectStatus(201));
    await setStatus('AwaitingApproval', 'AwaitingApproval');
    // A ServiceAccount that may read Rollouts but not approve them.
    const readRollouts = [{ apiGroups: [GROUP], resources: ['rollouts'], verbs: ['get', 'list', 'watch'] }];
    await platform().cluster.createServiceAccount('rollout-reader');
    await bindRole(platform().cluster, TEAM_PROJECT, 'rollout-reader', readRollouts, 'rollout-reader');
  });

  /** Writes the Rollout's status as its controller would: stage 1 applied by `appliedRun`, stage 2 in `phase`. */
  function setStatus(phase: string, secondStage: string) {
    return admin(
      'PATCH',
      `${rollouts}/cache-v2/status`,
      {
        status: {
          phase,
          currentStage: 1,
          stages: [
            { workspace: 'cache', phase: 'Applied', runId: appliedRun },
            { workspace: 'edge', phase: secondStage },
          ],
        },
      },
      { 'content-type': 'application/merge-patch+json' },
    ).then(expectStatus(200));
  }

  it('draws the summary and the tree, offering the approve command to a caller the server would let approve', async () => {
    const shown = await user().run(['rollouts', 'get', 'cache-v2']);
    expect(shown.code, shown.stderr).toBe(0);
    const lines = shown.stdout.split('\n');
    expect(lines.slice(0, 6)).toEqual([
      'Name:            cache-v2',
      `Namespace:       ${TEAM_PROJECT}`,
      'Status:          ॥ AwaitingApproval',
      'Revision:        v2.0.0 (by admin)',
      'Stage:           2/2',
      'Failure policy:  Halt',
    ]);
    const tree = lines.slice(lines.indexOf('') + 1).map((line) => line.split(/\s{3,}/));
    expect(tree[0]).toEqual(['NAME', 'KIND', 'STATUS', 'AGE', 'INFO']);
    expect(tree[1]).toEqual(['⟳ cache-v2', 'Rollout', '॥ AwaitingApproval', expect.stringMatching(/^\d+s$/)]);
    expect(tree[2]).toEqual(['├──# 1 cache', 'Stage', '✔ Applied']);
    expect(tree[3]).toEqual([`│  └──□ ${appliedRun}`, 'Run', '✔ Succeeded', expect.stringMatching(/^\d+s$/), 'plan']);
    expect(tree[4]).toEqual([
      '└──# 2 edge',
      'Stage',
      '॥ AwaitingApproval',
      'awaiting approval: kubectl platform rollouts approve cache-v2 --stage 2',
    ]);
    const yaml = await user().run(['rollouts', 'get', 'cache-v2', '-o', 'yaml']);
    expect(yaml.stdout).toContain('kind: Rollout\n');
  });

  it("issue 45, item 3: shows the Project's freeze, and which approval window governs the Rollout and when it opens", async () => {
    const project = `${API}/projects/${TEAM_PROJECT}`;
    const setPolicy = (approvalPolicy: unknown) =>
      admin('PATCH', project, { spec: { approvalPolicy } }, { 'content-type': 'application/merge-patch+json' }).then(
        expectStatus(200),
      );
    const end = new Date(Date.now() + 3_600_000).toISOString();
    await setPolicy({
      freeze: { active: true, reason: 'incident 4711', since: '2026-12-01T00:00:00Z' },
      windows: [
        {
          name: 'maintenance',
          kind: 'deny',
          start: new Date(Date.now() - 3_600_000).toISOString(),
          end,
          appliesTo: { rollouts: ['cache-v2'] },
        },
      ],
    });
    try {
      const shown = await user().run(['rollouts', 'get', 'cache-v2']);
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.stdout).toContain('Freeze:          frozen since 2026-12-01T00:00:00Z: incident 4711\n');
      expect(shown.stdout).toContain(`Window:          closed by "maintenance"; opens at ${end}\n`);
    } finally {
      await setPolicy(null);
    }
  });

  it("a caller without read access is refused in kubectl's words; one who may read but not approve is told so, with no command offered", async () => {
    const ci = await execCredentialKubeconfig(user(), platform(), 'ci', { namespace: TEAM_PROJECT });
    await writeFile(ci.tokensFile, `${platform().tokens.serviceAccount}\n`);
    const refused = await user().run(['rollouts', 'get', 'cache-v2'], { kubeconfig: ci.kubeconfig });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/^Error from server \(Forbidden\): .* may not get rollouts\.platform\.dev/);

    const readerConfig = await execCredentialKubeconfig(user(), platform(), 'reader', { namespace: TEAM_PROJECT });
    await writeFile(readerConfig.tokensFile, `${await platform().cluster.mintToken('rollout-reader')}\n`);
    const reader = await user().run(['rollouts', 'get', 'cache-v2'], { kubeconfig: readerConfig.kubeconfig });
    expect(reader.code, reader.stderr).toBe(0);
    expect(reader.stdout).toMatch(
      /└──# 2 edge\s+Stage\s+॥ AwaitingApproval\s+awaiting approval \(you may not approve\)\n/,
    );
  });

  it('-w redraws the tree when the Rollout changes', async () => {
    const cli = user().start(['rollouts', 'get', 'cache-v2', '--watch']);
    await eventually(
      () => cli.stdout().includes('॥ AwaitingApproval'),
      () => cli.stdout() + cli.stderr(),
    );
    await setStatus('Progressing', 'Applying');
    await eventually(
      () => cli.stdout().includes('◌ Applying'),
      () => cli.stdout() + cli.stderr(),
    );
    cli.kill();
    // Not a terminal: one drawing after the other, the new one whole.
    const drawings = cli.stdout().split('\nName:');
    expect(drawings.length).toBeGreaterThanOrEqual(2);
    expect(drawings.at(-1)).toContain('Status:          ◌ Progressing');
  });

  it('rollouts approve approves the stage through the approve route, as the OIDC user; the tree then says who approved', async () => {
    const alice = await execCredentialKubeconfig(user(), platform(), 'alice-approver', { namespace: TEAM_PROJECT });
    await writeFile(alice.tokensFile, `${platform().tokens.oidcUser}\n`);
    const reader = await execCredentialKubeconfig(user(), platform(), 'reader-approver', { namespace: TEAM_PROJECT });
    await writeFile(reader.tokensFile, `${await platform().cluster.mintToken('rollout-reader')}\n`);

    const refused = await user().run(['rollouts', 'approve', 'cache-v2', '--stage', 'edge'], {
      kubeconfig: reader.kubeconfig,
    });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(
      /^Error from server \(Forbidden\): system:serviceaccount:platform-system:rollout-reader may not approve rollouts\.platform\.dev "cache-v2" in namespace "team-a"\n$/,
    );

    const approved = await user().run(['rollouts', 'approve', 'cache-v2', '--stage', '2'], {
      kubeconfig: alice.kubeconfig,
    });
    expect(approved, approved.stderr).toMatchObject({
      code: 0,
      stdout: `rollout.${GROUP}/cache-v2 stage edge approved\n`,
    });
    const stored = await admin('GET', `${rollouts}/cache-v2`).then(expectStatus(200));
    expect(stored.spec.stages[1].approved).toBe(true);
    expect(
      stored.status.stages.find((stage: { workspace: string }) => stage.workspace === 'edge').approval,
    ).toMatchObject({
      approvedBy: 'oidc:alice@example.com',
    });
    const shown = await user().run(['rollouts', 'get', 'cache-v2']);
    expect(shown.stdout).toMatch(/└──# 2 edge\s+Stage\s+\S+ \w+\s+approved by oidc:alice@example\.com \d+s ago\n/);

    const again = await user().run(['rollouts', 'approve', 'cache-v2', '--stage', 'edge'], {
      kubeconfig: alice.kubeconfig,
    });
    expect(again.code).toBe(3);
    expect(again.stderr).toMatch(/^Error from server \(AlreadyApproved\): /);
  });

  it('Issue 45, item 2: a stage that needs two approvers: approving records one, and both commands say who still has to approve', async () => {
    await admin('POST', rollouts, {
      apiVersion: `${GROUP}/v1alpha1`,
      kind: 'Rollout',
      metadata: { name: 'cache-v3' },
      spec: { revision: 'v3', stages: [{ workspace: 'edge', approval: { required: true, count: 2 } }] },
    }).then(expectStatus(201));
    const alice = await execCredentialKubeconfig(user(), platform(), 'alice-first-of-two', { namespace: TEAM_PROJECT });
    await writeFile(alice.tokensFile, `${platform().tokens.oidcUser}\n`);
    const still = '(needs 1 more approver; approved so far by oidc:alice@example.com)';
    const approved = await user().run(['rollouts', 'approve', 'cache-v3', '--stage', 'edge'], {
      kubeconfig: alice.kubeconfig,
    });
    expect(approved, approved.stderr).toMatchObject({
      code: 0,
      stdout: `rollout.${GROUP}/cache-v3 stage edge: approval recorded ${still}\n`,
    });
    const shown = await user().run(['rollouts', 'get', 'cache-v3']);
    // Waiting (once a controller reached it) or not yet reached: the same count either way.
    expect(shown.stdout).toMatch(
      /# 1 edge .*(approval required|awaiting approval) \(needs 1 more approver; approved so far by oidc:alice@example\.com\)/,
    );
  });

  it("Issue 45, item 2: rollouts withdraw takes back one approval of a stage, the caller's own or the named approver's, and says who still has to approve", async () => {
    await admin('POST', rollouts, {
      apiVersion: `${GROUP}/v1alpha1`,
      kind: 'Rollout',
      metadata: { name: 'cache-v4' },
      spec: { revision: 'v4', stages: [{ workspace: 'edge', approval: { required: true, count: 2 } }] },
    }).then(expectStatus(201));
    const alice = await execCredentialKubeconfig(user(), platform(), 'alice-withdraws', { namespace: TEAM_PROJECT });
    await writeFile(alice.tokensFile, `${platform().tokens.oidcUser}\n`);
    const approvalsOfEdge = async () =>
      ((await admin('GET', `${rollouts}/cache-v4`).then(expectStatus(200))).status?.stages ?? [])
        .filter((stage: { workspace: string }) => stage.workspace === 'edge')
        .flatMap((stage: { approvals?: { approvedBy: string }[] }) => stage.approvals ?? [])
        .map((record: { approvedBy: string }) => record.approvedBy);
    const approve = () =>
      user().run(['rollouts', 'approve', 'cache-v4', '--stage', 'edge'], { kubeconfig: alice.kubeconfig });

    expect((await approve()).code).toBe(0);
    expect(await approvalsOfEdge()).toEqual(['oidc:alice@example.com']);
    const own = await user().run(['rollouts', 'withdraw', 'cache-v4', '--stage', '1'], {
      kubeconfig: alice.kubeconfig,
    });
    expect(own, own.stderr).toMatchObject({
      code: 0,
      stdout: `rollout.${GROUP}/cache-v4 stage edge: your approval withdrawn (needs 2 more approvers)\n`,
    });
    expect(await approvalsOfEdge()).toEqual([]);

    expect((await approve()).code).toBe(0);
    const named = await user().run([
      'rollouts',
      'withdraw',
      'cache-v4',
      '--stage',
      'edge',
      '--approver',
      'oidc:alice@example.com',
    ]);
    expect(named, named.stderr).toMatchObject({
      code: 0,
      stdout: `rollout.${GROUP}/cache-v4 stage edge: approval of oidc:alice@example.com withdrawn (needs 2 more approvers)\n`,
    });
    expect(await approvalsOfEdge()).toEqual([]);

    const none = await user().run([
      'rollouts',
      'withdraw',
      'cache-v4',
      '--stage',
      'edge',
      '--approver',
      'oidc:alice@example.com',
    ]);
    expect(none.code).toBe(3);
    expect(none.stderr).toMatch(/^Error from server \(ApprovalNotFound\): /);
    const unnamed = await user().run(['rollouts', 'withdraw', 'cache-v4']);
    expect(unnamed.code).toBe(4);
    expect(unnamed.stderr).toMatch(/^error: --stage is required/);
  }, 60_000); // six plugin runs, each several seconds on a busy two-core machine
});

describe('runs approve: an apply of exactly what a succeeded plan showed (the approvals contract)', () => {
  it("starts the apply bound to the plan, follows it to its outcome, and refuses the plan's second approval in kubectl's words", async () => {
    const plan = createdRunId((await user().run(['runs', 'start', 'storage', '--plan'])).stdout);
    const planned = await claim('storage');
    await controller.finish(planned.runId, planned.leaseId, 'Succeeded', 'planned');

    const cli = user().start(['runs', 'approve', plan, '-m', 'ship it', '--follow']);
    await eventually(
      () => cli.stderr().includes('created'),
      () => cli.stderr(),
    );
    const claimed = await controller.claim(60, { project: TEAM_PROJECT, workspace: 'storage' });
    expect(claimed?.run).toMatchObject({ type: 'apply', planRun: plan, message: 'ship it' });
    await controller.append(claimed!.run.id, claimed!.lease.id, 1, ['Apply complete!']);
    await controller.finish(claimed!.run.id, claimed!.lease.id, 'Succeeded', 'applied');
    expect(await cli.exited).toBe(0);
    expect(cli.stdout()).toBe('Apply complete!\n');
    expect(cli.stderr()).toContain(`run/${claimed!.run.id} created (apply of workspace storage)`);

    const again = await user().run(['runs', 'approve', plan]);
    expect(again.code).toBe(3);
    expect(again.stderr).toMatch(/^Error from server \(PlanStale\): /);
  });

  it('Issue 44, item 15: runs get says in one line whether a succeeded plan may still be applied, as the server states it', async () => {
    await admin('POST', `${API}/namespaces/${TEAM_PROJECT}/workspaces`, workspaceObject('stale-plans')).then(
      expectStatus(201),
    );
    const { id: plan } = await admin('POST', `/api/v1alpha1/projects/${TEAM_PROJECT}/workspaces/stale-plans/runs`, {
      type: 'plan',
    }).then(expectStatus(201));
    const planned = await claim('stale-plans');
    await controller.finish(planned.runId, planned.leaseId, 'Succeeded', 'planned');
    const fresh = await user().run(['runs', 'get', plan]);
    expect(fresh.stdout.trimEnd().split('\n').at(-1)).toMatch(
      new RegExp(`^Applyable until \\S+Z \\(23h from now\\): kubectl platform runs approve ${plan}$`),
    );

    const apply = await admin('POST', `/api/v1alpha1/projects/${TEAM_PROJECT}/runs/${plan}/apply`).then(
      expectStatus(201),
    );
    const stale = await user().run(['runs', 'get', plan]);
    expect(stale.stdout.trimEnd().split('\n').at(-1)).toBe(
      `Stale plan: a newer apply run (${apply.id}) of its Workspace exists; start a new plan (kubectl platform runs start stale-plans --plan)`,
    );
  }, 60_000); // two plugin runs, each several seconds on a busy two-core machine

  it("Issue 48, item 5: runs get prints the results of the run's tasks, waiting and then failed, as the server states them", async () => {
    await admin('POST', `${API}/namespaces/${TEAM_PROJECT}/workspaces`, workspaceObject('tasked')).then(
      expectStatus(201),
    );
    await admin(
      'POST',
      `${API}/namespaces/${TEAM_PROJECT}/runtasks`,
      runTaskObject('scanner', { url: taskServer.url, enforcement: 'mandatory', workspaces: ['tasked'] }),
    ).then(expectStatus(201));
    const { id } = await admin('POST', `/api/v1alpha1/projects/${TEAM_PROJECT}/workspaces/tasked/runs`, {
      type: 'plan',
    }).then(expectStatus(201));
    const waiting = await user().run(['runs', 'get', id]);
    expect(waiting.stdout).toMatch(/AwaitingTasks/);
    expect(waiting.stdout).toMatch(
      /\nTASK {6}STAGE {6}ENFORCEMENT {3}STATUS {4}MESSAGE\nscanner {3}pre_plan {3}mandatory {5}pending {3}<none>\n/,
    );
    expect(waiting.stdout).toMatch(/Waiting for its run tasks until \S+Z \(RUN_TASK_TIMEOUT\)\n$/);
    const request = await delivered(id);
    const callback = await sendCallback(
      request.callbackUrl,
      request.payload.access_token,
      taskResultDocument('failed', 'public bucket found'),
    );
    expect(callback.status).toBe(200);
    const failed = await user().run(['runs', 'get', id]);
    expect(failed.stdout).toMatch(/Failed/);
    expect(failed.stdout).toMatch(/\nscanner {3}pre_plan {3}mandatory {5}failed {3}public bucket found\n$/);
  }, 60_000); // two plugin runs, each several seconds on a busy two-core machine

  it('Issue 45, items 2 and 5: a plan that needs two approvers: runs approve records one (202) and says who still has to approve, runs get lists the approvals, runs withdraw takes one back', async () => {
    await admin('POST', `${API}/namespaces/${TEAM_PROJECT}/workspaces`, workspaceObject('two-approvers')).then(
      expectStatus(201),
    );
    const setPolicy = (approvalPolicy: unknown) =>
      admin(
        'PATCH',
        `${API}/projects/${TEAM_PROJECT}`,
        { spec: { approvalPolicy } },
        { 'content-type': 'application/merge-patch+json' },
      ).then(expectStatus(200));
    await setPolicy({ applies: [{ workspace: 'two-approvers', approvals: { count: 2 } }] });
    try {
      const { id: plan } = await admin('POST', `/api/v1alpha1/projects/${TEAM_PROJECT}/workspaces/two-approvers/runs`, {
        type: 'plan',
      }).then(expectStatus(201));
      const planned = await claim('two-approvers');
      await controller.finish(planned.runId, planned.leaseId, 'Succeeded', 'planned');
      const alice = await execCredentialKubeconfig(user(), platform(), 'alice-approves-plans', {
        namespace: TEAM_PROJECT,
      });
      await writeFile(alice.tokensFile, `${platform().tokens.oidcUser}\n`);
      const approve = () => user().run(['runs', 'approve', plan, '--follow'], { kubeconfig: alice.kubeconfig });
      const approvers = async () =>
        (
          (await admin('GET', `/api/v1alpha1/projects/${TEAM_PROJECT}/runs/${plan}`).then(expectStatus(200)))
            .planApproval?.approvals ?? []
        ).map((record: { approvedBy: string }) => record.approvedBy);

      // The first of two: recorded, no apply run to follow, exit 0.
      const approved = await approve();
      expect(approved, approved.stderr).toMatchObject({
        code: 0,
        stdout: `run/${plan}: approval recorded; still needed: 1 more approver\n`,
      });
      expect(await approvers()).toEqual(['oidc:alice@example.com']);
      const shown = await user().run(['runs', 'get', plan]);
      expect(shown.stdout).toMatch(
        /\nApproved by oidc:alice@example\.com at \d{4}-\d\d-\d\dT\S+Z \(groups: [^)]+\)\nStill needed: 1 more approver\nApplyable until /,
      );

      const own = await user().run(['runs', 'withdraw', plan], { kubeconfig: alice.kubeconfig });
      expect(own, own.stderr).toMatchObject({
        code: 0,
        stdout: `run/${plan}: your approval withdrawn; still needed: 2 more approvers\n`,
      });
      expect(await approvers()).toEqual([]);

      expect((await approve()).code).toBe(0);
      const named = await user().run(['runs', 'withdraw', plan, '--approver', 'oidc:alice@example.com']);
      expect(named, named.stderr).toMatchObject({
        code: 0,
        stdout: `run/${plan}: approval of oidc:alice@example.com withdrawn; still needed: 2 more approvers\n`,
      });
      expect(await approvers()).toEqual([]);

      const none = await user().run(['runs', 'withdraw', plan, '--approver', 'oidc:alice@example.com']);
      expect(none.code).toBe(3);
      expect(none.stderr).toMatch(/^Error from server \(ApprovalNotFound\): /);

      // The second approver's approval meets the policy: the apply starts (201, as with one approver), and
      // an approval that started it can no longer be withdrawn.
      expect((await approve()).code).toBe(0);
      const second = await user().run(['runs', 'approve', plan]);
      expect(second.code, second.stderr).toBe(0);
      expect(second.stdout).toMatch(/^run\/[0-9a-f-]{36} created \(apply of workspace two-approvers\)\n$/);
      const late = await user().run(['runs', 'withdraw', plan], { kubeconfig: alice.kubeconfig });
      expect(late.code).toBe(3);
      expect(late.stderr).toMatch(/^Error from server \(ApplyAlreadyStarted\): /);
    } finally {
      await setPolicy(null);
    }
  }, 120_000); // ten plugin runs, each several seconds on a busy two-core machine

  it('an apply without a plan is refused where the Workspace applies only reviewed plans, naming the commands that apply a reviewed plan (issue 44, item 15)', async () => {
    const reviewed = workspaceObject('reviewed') as { spec: Record<string, unknown> };
    reviewed.spec.allowApplyWithoutPlan = false;
    await admin('POST', `${API}/namespaces/${TEAM_PROJECT}/workspaces`, reviewed).then(expectStatus(201));
    const refused = await user().run(['runs', 'start', 'reviewed', '--apply']);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/^Error from server \(ApplyNeedsPlan\): /);
    // Issue 44, item 15: a CLI user is told the plugin's commands, not a URL to POST.
    expect(refused.stderr).not.toContain('POST');
    expect(refused.stderr).toContain(
      'kubectl platform runs start reviewed --plan, then apply the plan it makes with kubectl platform runs approve RUN',
    );
  });
});
