// Issue 43, item 8: one kubeconfig loader, for the server's KUBECONFIG and the CLI, with kubectl's
// merge rules (client-go's clientcmd: the first file to set a cluster, user or context name wins it,
// the first file to set current-context wins, a missing file is skipped). Proved against the real
// kubectl: `kubectl config view --merge` on the same KUBECONFIG list.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { kubeConfigFromFiles } from '../../../shared/base/config/kubeconfig-files.ts';
import { KUBECTL, requireKubectl, runCli } from '../../support/kubectl-cli.ts';

/** What a merge decides: each name's entry and the current context, in a form both sides give. */
interface MergeOutcome {
  currentContext: string;
  clusters: Record<string, string>;
  users: Record<string, string>;
  contexts: Record<string, { cluster: string; user: string; namespace?: string }>;
}

/** A kubeconfig file whose every cluster, user and context names the file (`from`), so a merge shows which won. */
function kubeconfigOf(from: string, names: { clusters: string[]; contexts: string[]; current?: string }) {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: names.clusters.map((name) => ({ name, cluster: { server: `https://${from}.example` } })),
    users: names.clusters.map((name) => ({ name, user: { token: `token-of-${from}` } })),
    contexts: names.contexts.map((name) => ({
      name,
      context: { cluster: names.clusters[0], user: names.clusters[0], namespace: `namespace-of-${from}` },
    })),
    ...(names.current ? { 'current-context': names.current } : {}),
  });
}

let folder: string;
let home: string;
beforeAll(async () => {
  await requireKubectl();
  folder = await mkdtemp(join(tmpdir(), 'kubeconfig-merge-'));
  home = join(folder, 'home');
  // `first` has no current-context: the first file that sets one (`second`) gives it, not the first file.
  await writeFile(
    join(folder, 'first'),
    kubeconfigOf('first', { clusters: ['shared', 'only-first'], contexts: ['shared'] }),
  );
  await writeFile(
    join(folder, 'second'),
    kubeconfigOf('second', { clusters: ['shared', 'only-second'], contexts: ['shared', 'second'], current: 'second' }),
  );
  await writeFile(
    join(folder, 'third'),
    kubeconfigOf('third', { clusters: ['only-second', 'only-third'], contexts: ['second', 'third'], current: 'third' }),
  );
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

const list = (...files: string[]) => files.map((file) => join(folder, file)).join(delimiter);

async function kubectlMerge(kubeconfig: string): Promise<MergeOutcome> {
  const result = await runCli(KUBECTL, ['config', 'view', '--merge', '--raw', '-o', 'json'], {
    home,
    env: { KUBECONFIG: kubeconfig },
  });
  if (result.code !== 0) throw new Error(`kubectl config view exited ${result.code}: ${result.stderr}`);
  const view = JSON.parse(result.stdout) as {
    'current-context': string;
    clusters: Array<{ name: string; cluster: { server: string } }>;
    users: Array<{ name: string; user: { token: string } }>;
    contexts: Array<{ name: string; context: { cluster: string; user: string; namespace?: string } }>;
  };
  return {
    currentContext: view['current-context'],
    clusters: Object.fromEntries(view.clusters.map(({ name, cluster }) => [name, cluster.server])),
    users: Object.fromEntries(view.users.map(({ name, user }) => [name, user.token])),
    contexts: Object.fromEntries(view.contexts.map(({ name, context }) => [name, context])),
  };
}

function loaderMerge(config: KubeConfig): MergeOutcome {
  return {
    currentContext: config.getCurrentContext(),
    clusters: Object.fromEntries(config.getClusters().map(({ name, server }) => [name, server])),
    users: Object.fromEntries(config.getUsers().map(({ name, token }) => [name, token ?? ''])),
    contexts: Object.fromEntries(
      config
        .getContexts()
        .map(({ name, cluster, user, namespace }) => [name, { cluster, user, ...(namespace ? { namespace } : {}) }]),
    ),
  };
}

describe('Issue 43, item 8: one kubeconfig loader with kubectl\'s merge rules ("kubectl config view --merge")', () => {
  it.each([
    ['first, second, third', ['first', 'second', 'third']],
    ['third, second, first', ['third', 'second', 'first']],
    ['a missing file first, then second, first', ['missing', 'second', 'first']],
  ])(
    'merges %s as kubectl does: first file wins a name, first current-context wins',
    async (_order, files) => {
      const kubeconfig = list(...files);
      const expected = await kubectlMerge(kubeconfig);
      expect(loaderMerge(kubeConfigFromFiles(kubeconfig))).toEqual(expected);
    },
    60_000,
  );

  it('the case is one a last-wins or refusing merge gets wrong: names shared, current-context not in the first file', async () => {
    const merged = await kubectlMerge(list('first', 'second', 'third'));
    expect(merged).toMatchObject({
      currentContext: 'second',
      clusters: { shared: 'https://first.example', 'only-second': 'https://second.example' },
      contexts: { second: { namespace: 'namespace-of-second' } },
    });
  }, 60_000);
});
