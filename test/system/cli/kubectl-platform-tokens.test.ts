// Issue 46, item 5: `kubectl platform tokens create|list|revoke`, run by the real kubectl against the platform
// served over HTTPS; the value is printed once, alone on standard output, and the token works with kubectl.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kubectlWith } from '../../support/kubectl-cli.ts';
import { TEAM_PROJECT, usePlatform } from '../../support/platform-fixture.ts';
import { oneContextKubeconfig, usePluginUser } from '../../support/plugin-cli.ts';

const platform = usePlatform({}, { tls: true });
const user = usePluginUser(platform);

describe('Issue 46, item 5: kubectl platform tokens create, list and revoke', () => {
  it('creates a token printed once to stdout only, which kubectl uses as its Role allows; lists it without the value; revokes it', async () => {
    const created = await user().run(['tokens', 'create', 'pipeline', '--role', 'ci', '--lifetime', '1h']);
    expect(created.code, created.stderr).toBe(0);
    const token = created.stdout.trimEnd();
    expect(created.stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
    expect(created.stderr).toContain('token/pipeline created');
    expect(created.stderr).not.toContain(token);

    const home = user().home;
    const kubeconfig = join(home, 'pipeline.kubeconfig');
    await writeFile(
      kubeconfig,
      oneContextKubeconfig({
        cluster: { server: platform().gateway.url, 'certificate-authority': join(home, 'ca.crt') },
        user: { token },
        namespace: TEAM_PROJECT,
      }),
    );
    const kubectl = kubectlWith(kubeconfig, home);
    expect((await kubectl.result(['get', 'workspaces'])).code).toBe(0);
    const refused = await kubectl.result(['create', 'namespace', 'not-mine']);
    expect(refused.code).not.toBe(0);

    const listed = await user().run(['tokens', 'list']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/^NAME\s+ROLE\s+CREATOR\s+AGE\s+EXPIRES\s+LAST USED\n/);
    expect(listed.stdout).toMatch(/^pipeline\s+Role\/ci\s+admin\s+/m);
    expect(listed.stdout + listed.stderr).not.toContain(token);

    const revoked = await user().run(['tokens', 'revoke', 'pipeline']);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toBe('token/pipeline revoked\n');
    const after = await kubectl.result(['get', 'workspaces']);
    expect(after.code).not.toBe(0);
    expect(after.stderr).toContain('You must be logged in to the server');
  });

  it('refuses a create without --lifetime or with a role of another shape, before calling the server', async () => {
    const missing = await user().run(['tokens', 'create', 'nolife', '--role', 'ci']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('--lifetime is required');
    const shape = await user().run(['tokens', 'create', 'odd', '--role', 'Group/x', '--lifetime', '1h']);
    expect(shape.code).not.toBe(0);
    expect(shape.stderr).toContain('--role must be');
  });
});
