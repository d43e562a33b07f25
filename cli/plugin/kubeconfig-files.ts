// The kubeconfig, found and merged as kubectl finds and merges it (client-go's loading rules), each file
// read by @kubernetes/client-node's own loader: --kubeconfig alone when given; else every existing file of
// KUBECONFIG (missing ones skipped), the first file naming a cluster, user or context winning, the first
// current-context winning; else ~/.kube/config; else the in-cluster configuration. client-node's own
// loadFromDefault differs from kubectl in two ways that matter here: it stops at a missing KUBECONFIG
// file and refuses a name that two files share.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { PluginError } from './plugin-error.ts';

/** What the command line says about the kubeconfig (kubectl's flags of the same names). */
export interface KubeconfigSelection {
  kubeconfig?: string;
  context?: string;
}

/**
 * What kubectl tells exec credential plugins (kubelogin and the like) in KUBERNETES_EXEC_INFO: the
 * ExecCredential version it speaks and that the user is there to answer a prompt. client-node starts
 * the plugin with this process's environment, so setting it here reaches every plugin it runs.
 */
const EXEC_INFO = JSON.stringify({
  apiVersion: 'client.authentication.k8s.io/v1',
  kind: 'ExecCredential',
  spec: { interactive: true },
});

/** Loads the kubeconfig with its current context set (--context wins); throws a PluginError in kubectl's words. */
export function loadKubeconfig(selection: KubeconfigSelection): KubeConfig {
  process.env.KUBERNETES_EXEC_INFO ??= EXEC_INFO;
  const config = selection.kubeconfig ? fromFiles([selection.kubeconfig]) : fromEnvironmentOrHome();
  if (selection.context !== undefined) {
    if (!config.getContextObject(selection.context))
      throw new PluginError(`error: context "${selection.context}" does not exist`, 'usage');
    config.setCurrentContext(selection.context);
  }
  if (!config.getCurrentContext() || !config.getCurrentCluster())
    throw new PluginError(
      'error: the kubeconfig has no current context with a cluster: pass --context, or write one with `npx platform-api kubeconfig --server URL`',
      'usage',
    );
  return config;
}

function fromEnvironmentOrHome(): KubeConfig {
  const listed = (process.env.KUBECONFIG ?? '').split(delimiter).filter(Boolean);
  if (listed.length > 0) return fromFiles(listed.filter((file) => existsSync(file)));
  const home = join(homedir(), '.kube', 'config');
  if (existsSync(home)) return fromFiles([home]);
  const config = new KubeConfig();
  config.loadFromDefault();
  return config;
}

/** Each file through client-node's loader (relative paths resolved against the file's folder), merged first-wins. */
function fromFiles(files: string[]): KubeConfig {
  const loaded = files.map((file) => {
    const one = new KubeConfig();
    try {
      one.loadFromFile(file);
    } catch (error) {
      throw new PluginError(`error: cannot read the kubeconfig ${file}: ${(error as Error).message}`, 'usage');
    }
    return one;
  });
  const firstByName = <T extends { name: string }>(lists: T[][]) => {
    const byName = new Map<string, T>();
    for (const entry of lists.flat()) if (!byName.has(entry.name)) byName.set(entry.name, entry);
    return [...byName.values()];
  };
  const merged = new KubeConfig();
  merged.loadFromOptions({
    clusters: firstByName(loaded.map((one) => one.getClusters())),
    users: firstByName(loaded.map((one) => one.getUsers())),
    contexts: firstByName(loaded.map((one) => one.getContexts())),
    currentContext: loaded.map((one) => one.getCurrentContext()).find(Boolean) ?? '',
  });
  return merged;
}
