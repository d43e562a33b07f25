// Issue 37 with the real kubectl (1.33) over HTTPS: `kubectl edit` is one more write path (kubectl computes a merge
// patch from what the editor saved), so a caller who may patch but not approve cannot approve a stage by editing
// it and nothing changes, while an approver can; `kubectl auth can-i approve rollouts` answers truly.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify as toYaml } from 'yaml';
import { stageApproved } from '../../../shared/contract/rules/rollout-stage.ts';
import { GROUP, TEAM_PROJECT, usePlatform } from '../../support/platform-fixture.ts';
import {
  createRollout,
  rolloutPath,
  useApprovalCallers,
  userOf,
  type ApprovalCaller,
} from '../../support/approval-callers.ts';
import { kubectlWith, requireKubectl } from '../../support/kubectl-cli.ts';

const platform = usePlatform({}, { tls: true });
const tokenOf = useApprovalCallers(platform);
let home = '';
let editor = '';
const kubectlOf = new Map<ApprovalCaller, ReturnType<typeof kubectlWith>>();

interface Rollout {
  metadata: { resourceVersion: string };
  spec: { revision: string; stages: Array<{ workspace: string; approved?: boolean }> };
  status?: { stages?: Array<{ workspace: string; approval?: { approvedBy: string } }> };
}
const stored = async (name: string) => (await platform().clusterAdmin.find<Rollout>(rolloutPath(name)))!;

/** A kubeconfig that presents `caller`'s ServiceAccount token to the platform, verifying its certificate. */
async function kubeconfigOf(caller: ApprovalCaller): Promise<string> {
  const file = join(home, `${caller}.kubeconfig`);
  await writeFile(
    file,
    toYaml({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: 'platform',
          cluster: {
            server: platform().gateway.url,
            'certificate-authority-data': Buffer.from(platform().caCertificate!).toString('base64'),
          },
        },
      ],
      users: [{ name: caller, user: { token: tokenOf(caller) } }],
      contexts: [{ name: caller, context: { cluster: 'platform', user: caller, namespace: TEAM_PROJECT } }],
      'current-context': caller,
    }),
  );
  return file;
}

beforeAll(async () => {
  await requireKubectl();
  home = await mkdtemp(join(tmpdir(), 'kubectl-approvals-'));
  // The editor kubectl runs on the object it fetched (as JSON with `-o json`): it approves the stage APPROVE_STAGE.
  editor = join(home, 'approve-stage.cjs');
  await writeFile(
    editor,
    `const fs = require('node:fs');
const file = process.argv[process.argv.length - 1];
const rollout = JSON.parse(fs.readFileSync(file, 'utf8'));
for (const stage of rollout.spec.stages) if (stage.workspace === process.env.APPROVE_STAGE) stage.approved = true;
fs.writeFileSync(file, JSON.stringify(rollout, null, 2));
`,
  );
  for (const caller of ['rollout-writer', 'rollout-approver'] as const)
    kubectlOf.set(caller, kubectlWith(await kubeconfigOf(caller), home));
});
afterAll(async () => {
  if (home) await rm(home, { recursive: true, force: true });
});

/** `kubectl edit rollout <name>` as `caller`, the editor approving `stage`. */
const editToApprove = (caller: ApprovalCaller, name: string, stage: string) =>
  kubectlOf.get(caller)!.result(['edit', `rollouts.${GROUP}`, name, '-o', 'json'], undefined, {
    KUBE_EDITOR: `${process.execPath} ${editor}`,
    APPROVE_STAGE: stage,
  });

describe('issue 37, item 1: `kubectl edit` is a write path like any other', () => {
  it('a caller who may patch but not approve: kubectl reports the refusal naming the verb, and the Rollout is unchanged', async () => {
    await createRollout(platform, platform().tokens.admin, 'edited-by-writer');
    const before = await stored('edited-by-writer');
    const edited = await editToApprove('rollout-writer', 'edited-by-writer', 'prod');
    expect(edited.code, edited.stdout).not.toBe(0);
    expect(edited.stderr).toContain(`${userOf('rollout-writer')} may not approve rollouts.${GROUP} "edited-by-writer"`);
    expect(await stored('edited-by-writer')).toEqual(before);
  });

  it('an approver: the edit approves the stage, and the server records the approver', async () => {
    await createRollout(platform, platform().tokens.admin, 'edited-by-approver');
    const edited = await editToApprove('rollout-approver', 'edited-by-approver', 'prod');
    expect(edited.code, edited.stderr).toBe(0);
    expect(edited.stdout).toContain('edited');
    const after = await stored('edited-by-approver');
    // The gate as the cluster holds it: the server's record for the revision, in the status (issue 43 item 7).
    expect(stageApproved(after, 'prod')).toBe(true);
    expect(after.status?.stages?.find((stage) => stage.workspace === 'prod')?.approval?.approvedBy).toBe(
      userOf('rollout-approver'),
    );
  });

  it("under four eyes, the revision's author is refused by an edit too (ApproverIsAuthor)", async () => {
    await createRollout(platform, tokenOf('rollout-approver'), 'edited-by-author');
    const before = await stored('edited-by-author');
    const edited = await editToApprove('rollout-approver', 'edited-by-author', 'prod-eu');
    expect(edited.code).not.toBe(0);
    expect(edited.stderr).toContain('may not approve stage prod-eu');
    expect(await stored('edited-by-author')).toEqual(before);
  });
});

describe('issue 37, item 4: `kubectl auth can-i approve rollouts` (SelfSubjectAccessReview and RulesReview) answers truly', () => {
  /** `kubectl auth can-i`: exit 0 and "yes", or exit 1 and "no". */
  async function canI(caller: ApprovalCaller, args: string[]): Promise<string> {
    const answer = await kubectlOf.get(caller)!.result(['auth', 'can-i', ...args]);
    const [word] = answer.stdout.trim().split(' ');
    expect(answer.code, answer.stderr).toBe(word === 'yes' ? 0 : 1);
    return word!;
  }

  it('no for the caller who may only write Rollouts, yes for the approver; both may patch', async () => {
    expect(await canI('rollout-writer', ['approve', `rollouts.${GROUP}`])).toBe('no');
    expect(await canI('rollout-approver', ['approve', `rollouts.${GROUP}`])).toBe('yes');
    expect(await canI('rollout-approver', ['approve', `rollouts.${GROUP}/some-rollout`])).toBe('yes');
    expect(await canI('rollout-writer', ['patch', `rollouts.${GROUP}`])).toBe('yes');
  });

  it('`--list` (a SelfSubjectRulesReview) shows `approve` among the verbs on rollouts of the approver only', async () => {
    const rolloutsRow = async (caller: ApprovalCaller) =>
      (await kubectlOf.get(caller)!.ok(['auth', 'can-i', '--list']))
        .split('\n')
        .find((line) => line.startsWith(`rollouts.${GROUP} `));
    expect(await rolloutsRow('rollout-approver')).toMatch(/\[.*approve.*\]/);
    expect(await rolloutsRow('rollout-writer')).not.toMatch(/approve/);
  });
});
