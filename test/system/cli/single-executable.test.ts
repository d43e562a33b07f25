// Issue 39, "shipped as users install plugins": `npm run build`'s plugin build (infra/tools/build-plugin.ts)
// makes a single executable (Node's SEA) that the real kubectl runs as `kubectl platform` from PATH with no
// Node and no node_modules beside it, a CommonJS bundle with a `#!` line, and the krew archive and manifest.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { buildPlugin, type PluginBuild } from '../../../infra/tools/build-plugin.ts';
import { usePlatform } from '../../support/platform-fixture.ts';
import { usePluginUser } from '../../support/plugin-cli.ts';

let folder = '';
let built: PluginBuild;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'plugin-build-'));
  built = await buildPlugin(join(folder, 'plugin'), { downloadBaseUrl: 'https://downloads.example.com/platform-api/' });
}, 180_000);
afterAll(async () => {
  if (folder) await rm(folder, { recursive: true, force: true });
});

const platform = usePlatform({}, { tls: true });
const user = usePluginUser(platform, () => built.executable);

describe('The single executable is kubectl-platform on PATH, run by the real kubectl', () => {
  it('lists runs against the platform over HTTPS with the kubeconfig kubectl hands it', async () => {
    const listed = await user().run(['runs', 'list']);
    expect(listed, listed.stderr).toMatchObject({
      code: 0,
      stderr: 'No runs found in team-a namespace.\n',
      stdout: '',
    });
    const refused = await user().run(['runs', 'list', '-n', 'team-b', '--context', 'nothing']);
    expect(refused).toMatchObject({ code: 4, stderr: 'error: context "nothing" does not exist\n' });
  });

  it('is an executable of its own: it runs with an empty environment, without Node on PATH', () => {
    const help = execFileSync(built.executable, ['--help'], { env: {}, encoding: 'utf8' });
    expect(help).toContain('rollouts approve ROLLOUT');
  });

  it('the CommonJS bundle runs as a script of its own (#!/usr/bin/env node)', async () => {
    expect((await readFile(built.bundle, 'utf8')).startsWith('#!/usr/bin/env node\n')).toBe(true);
    const help = execFileSync(built.bundle, ['runs', 'logs', '--help'], { encoding: 'utf8' });
    expect(help).toContain('kubectl platform runs logs RUN [-f, --follow]');
  });
});

describe('The krew manifest describes the archive as krew checks it', () => {
  it("names this platform's archive by its URL and sha256, and the binary inside it", async () => {
    const manifest = parseYaml(await readFile(built.manifest, 'utf8'));
    const version = JSON.parse(await readFile(join(import.meta.dirname, '../../../package.json'), 'utf8')).version;
    const sha256 = createHash('sha256')
      .update(await readFile(built.archive))
      .digest('hex');
    expect(manifest).toEqual({
      apiVersion: 'krew.googlecontainertools.github.com/v1alpha2',
      kind: 'Plugin',
      metadata: { name: 'platform' },
      spec: {
        version: `v${version}`,
        shortDescription: expect.any(String),
        description: expect.any(String),
        platforms: [
          {
            selector: { matchLabels: { os: 'linux', arch: process.arch === 'arm64' ? 'arm64' : 'amd64' } },
            uri: `https://downloads.example.com/platform-api/v${version}/${built.archive.split('/').at(-1)}`,
            sha256,
            bin: 'kubectl-platform',
            files: [{ from: 'kubectl-platform', to: '.' }],
          },
        ],
      },
    });
    expect(execFileSync('tar', ['-tzf', built.archive], { encoding: 'utf8' })).toBe('kubectl-platform\n');
  });
});
