// Client configuration pointing at the emulator, for @kubernetes/client-node and as a kubeconfig file for CLIs.
import { KubeConfig } from '@kubernetes/client-node';

const NAME = 'kube-emulator';

/** Where and how to reach the emulator. */
export interface EmulatorEndpoint {
  server: string;
  /** PEM of the serving certificate when the emulator serves HTTPS; clients verify against it. */
  certificateAuthority?: string;
}

const base64 = (text: string): string => Buffer.from(text).toString('base64');

/** A KubeConfig whose current context reaches the emulator with a bearer token. */
export function emulatorKubeConfig(endpoint: EmulatorEndpoint, token: string): KubeConfig {
  const config = new KubeConfig();
  // client-node v2 refuses plain http unless skipTLSVerify is set (there is no TLS to verify then).
  const trust = endpoint.certificateAuthority
    ? { caData: base64(endpoint.certificateAuthority) }
    : { skipTLSVerify: true };
  config.loadFromOptions({
    clusters: [{ name: NAME, server: endpoint.server, ...trust }],
    users: [{ name: NAME, token }],
    contexts: [{ name: NAME, cluster: NAME, user: NAME, namespace: 'default' }],
    currentContext: NAME,
  });
  return config;
}

/** The same configuration as kubeconfig YAML (double-quoted scalars, so any token text is safe). */
export function emulatorKubeConfigYaml(endpoint: EmulatorEndpoint, token: string): string {
  const quote = (text: string): string => JSON.stringify(text);
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: ${NAME}`,
    '  cluster:',
    `    server: ${quote(endpoint.server)}`,
    // As the KubeConfig object: client-node v2 refuses plain http unless told there is no TLS to verify.
    endpoint.certificateAuthority
      ? `    certificate-authority-data: ${quote(base64(endpoint.certificateAuthority))}`
      : '    insecure-skip-tls-verify: true',
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
