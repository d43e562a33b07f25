import { delimiter } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';

/**
 * The KubeConfig of a KUBECONFIG value as the settings hold it: its files in order, merged as
 * kubectl and the client's own `loadFromDefault` merge them (the first file's current context),
 * but from the parsed value rather than from the process environment.
 */
export function kubeConfigFromFiles(kubeconfig: string): KubeConfig {
  const [first, ...rest] = kubeconfig.split(delimiter).filter(Boolean);
  const merged = new KubeConfig();
  merged.loadFromFile(first ?? kubeconfig);
  for (const file of rest) {
    const next = new KubeConfig();
    next.loadFromFile(file);
    merged.mergeConfig(next);
  }
  return merged;
}
