// The one kubeconfig loader (issue 43, item 8), for the server's KUBECONFIG setting and the CLI alike:
// several files merged as kubectl merges them (client-go's clientcmd loading rules). Each file is read
// by @kubernetes/client-node's own loader (relative paths resolved against the file's folder); a
// missing file is skipped; the first file that names a cluster, user or context wins for that name,
// and the first file that sets current-context wins. client-node's own `mergeConfig` differs in the
// two ways that matter: it refuses a name that two files share, and the LAST current-context wins.
import { existsSync } from 'node:fs';
import { delimiter } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';

/** A file of the list that exists but cannot be read as a kubeconfig. */
export class UnreadableKubeconfigError extends Error {
  readonly file: string;

  constructor(file: string, cause: Error) {
    super(`cannot read the kubeconfig ${file}: ${cause.message}`);
    this.name = 'UnreadableKubeconfigError';
    this.file = file;
  }
}

/** The existing files of `files` merged by kubectl's rules (an empty KubeConfig when none exists). */
export function mergeKubeconfigFiles(files: readonly string[]): KubeConfig {
  const loaded = files.filter((file) => existsSync(file)).map(readKubeconfig);
  const merged = new KubeConfig();
  merged.loadFromOptions({
    clusters: firstByName(loaded.map((one) => one.getClusters())),
    users: firstByName(loaded.map((one) => one.getUsers())),
    contexts: firstByName(loaded.map((one) => one.getContexts())),
    currentContext: loaded.map((one) => one.getCurrentContext()).find(Boolean) ?? '',
  });
  return merged;
}

/**
 * The KubeConfig of a KUBECONFIG value as the settings hold it (files separated as on PATH), merged
 * as kubectl merges them; a value none of whose files exists is refused, naming them.
 */
export function kubeConfigFromFiles(kubeconfig: string): KubeConfig {
  const files = kubeconfig.split(delimiter).filter(Boolean);
  if (!files.some((file) => existsSync(file)))
    throw new Error(`KUBECONFIG names no existing file (${files.join(', ') || 'none'})`);
  return mergeKubeconfigFiles(files);
}

function readKubeconfig(file: string): KubeConfig {
  const one = new KubeConfig();
  try {
    one.loadFromFile(file);
  } catch (error) {
    throw new UnreadableKubeconfigError(file, error as Error);
  }
  return one;
}

/** The entries of `lists` in order, each name's first one only. */
function firstByName<T extends { name: string }>(lists: readonly T[][]): T[] {
  const byName = new Map<string, T>();
  for (const entry of lists.flat()) if (!byName.has(entry.name)) byName.set(entry.name, entry);
  return [...byName.values()];
}
