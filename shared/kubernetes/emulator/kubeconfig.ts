// Client configuration pointing at the emulator, for @kubernetes/client-node and as a kubeconfig file for CLIs.
import { KubeConfig } from '@kubernetes/client-node';

const NAME = 'kube-emulator';

/** A KubeConfig whose current context reaches `server` with a bearer token. */
export function emulatorKubeConfig(server: string, token: string): KubeConfig {
  const config = new KubeConfig();
  config.loadFromOptions({
    // client-node v2 refuses plain http unless skipTLSVerify is set (there is no TLS to verify).
    clusters: [{ name: NAME, server, skipTLSVerify: true }],
    users: [{ name: NAME, token }],
    contexts: [{ name: NAME, cluster: NAME, user: NAME, namespace: 'default' }],
    currentContext: NAME,
  });
  return config;
}

/** The same configuration as kubeconfig YAML (double-quoted scalars, so any token text is safe). */
export function emulatorKubeConfigYaml(server: string, token: string): string {
  const quote = (text: string): string => JSON.stringify(text);
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: ${NAME}`,
    '  cluster:',
    `    server: ${quote(server)}`,
    'users:',
    `- name: ${NAME}`,
    '  user:',
    `    token: ${quote(token)}`,
    'contexts:',
    `- name: ${NAME}`,
    '  context:',
    `    cluster: ${NAME}`,
    `    user: ${NAME}`,
    '    namespace: default',
    `current-context: ${NAME}`,
    '',
  ].join('\n');
}
