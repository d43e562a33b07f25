// The kubeconfig, found as kubectl finds it (client-go's loading rules): --kubeconfig alone when given;
// else every file of KUBECONFIG, merged by the one loader the server uses too
// (shared/base/config/kubeconfig-files.ts: missing files skipped, first name and first current-context
// win); else ~/.kube/config; else the in-cluster configuration. client-node's own loadFromDefault
// differs from kubectl: it stops at a missing KUBECONFIG file and refuses a name that two files share.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { mergeKubeconfigFiles, UnreadableKubeconfigError } from '../../shared/base/config/kubeconfig-files.ts';
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
  const config = selection.kubeconfig ? fromNamedFile(selection.kubeconfig) : fromEnvironmentOrHome();
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

/** --kubeconfig FILE: unlike a KUBECONFIG list's, a missing file is an error (kubectl: `stat FILE: no such file`). */
function fromNamedFile(file: string): KubeConfig {
  if (!existsSync(file)) throw new PluginError(`error: stat ${file}: no such file or directory`, 'usage');
  return fromFiles([file]);
}

function fromEnvironmentOrHome(): KubeConfig {
  const listed = (process.env.KUBECONFIG ?? '').split(delimiter).filter(Boolean);
  if (listed.length > 0) return fromFiles(listed);
  const home = join(homedir(), '.kube', 'config');
  if (existsSync(home)) return fromFiles([home]);
  const config = new KubeConfig();
  config.loadFromDefault();
  return config;
}

/** The files merged as kubectl merges them; an unreadable one is a usage error in kubectl's words. */
function fromFiles(files: string[]): KubeConfig {
  try {
    return mergeKubeconfigFiles(files);
  } catch (error) {
    if (error instanceof UnreadableKubeconfigError) throw new PluginError(`error: ${error.message}`, 'usage');
    throw error;
  }
}
