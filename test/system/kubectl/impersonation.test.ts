// A hostile sweep with the real kubectl: `--as` sends Impersonate-User, which the server ignored and then acted
// with the caller's own rights. What the server sends to the cluster must be what it authorized: the request is
// refused, naming the header, and nothing changes.
import { describe, expect, it } from 'vitest';
import { API, TEAM_PROJECT, expectStatus, send, usePlatform, workspaceObject } from '../../support/platform-fixture.ts';
import { useAdminKubectl } from '../../support/kubectl-cli.ts';

const platform = usePlatform({}, { tls: true });
const admin = useAdminKubectl(platform);

describe('kubectl --as: the server has no impersonation, so it refuses the request instead of running it as the caller', () => {
  it('kubectl --as=bob delete and auth can-i --as=bob fail naming the header; the Workspace stays', async () => {
    const path = `${API}/namespaces/${TEAM_PROJECT}/workspaces/kept-from-bob`;
    await send(
      platform().gateway.url,
      platform().tokens.admin,
      'POST',
      `${API}/namespaces/${TEAM_PROJECT}/workspaces`,
      workspaceObject('kept-from-bob'),
    ).then(expectStatus(201));
    for (const args of [
      ['--as=bob', 'delete', 'workspace', 'kept-from-bob', '-n', TEAM_PROJECT],
      ['--as=bob', '--as-group=readers', 'auth', 'can-i', 'delete', 'workspaces', '-n', TEAM_PROJECT],
    ]) {
      const answer = await admin().result(args);
      expect([args.join(' '), answer.code === 0]).toEqual([args.join(' '), false]);
      expect(answer.stderr + answer.stdout).toContain('impersonation is not supported');
    }
    expect(await platform().clusterAdmin.find(path)).toBeDefined();
    expect(await admin().ok(['auth', 'can-i', 'delete', 'workspaces', '-n', TEAM_PROJECT])).toContain('yes');
  });
});
