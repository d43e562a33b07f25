// Issue 38, item 15: docs/kubernetes-emulator.md documents `startKubeEmulator({ tls: true })`, which made
// the emulator throw a TypeError; `tls: true` now makes a self-signed certificate at start, and the
// object form (a certificate of the caller's) still serves with the certificate given.
import { X509Certificate } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { CoreV1Api } from '@kubernetes/client-node';
import { startKubeEmulator, type KubeEmulator } from '../../../infra/kube-emulator/index.ts';
import { generateTlsCertificate } from '../../../infra/kube-emulator/self-signed-certificate.ts';

let emulator: KubeEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

/** The names of the namespaces, read through client-node with the emulator's kubeconfig (TLS verified). */
async function namespaces(kube: KubeEmulator): Promise<string[]> {
  const list = await kube.kubeConfig().makeApiClient(CoreV1Api).listNamespace();
  return list.items.map((namespace) => namespace.metadata!.name!);
}

describe('startKubeEmulator({ tls: true }) serves HTTPS with a certificate it makes (docs/kubernetes-emulator.md)', () => {
  it('answers over https, and its kubeconfig trusts the certificate it made for 127.0.0.1', async () => {
    emulator = await startKubeEmulator({ tls: true });
    expect(emulator.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const certificate = new X509Certificate(emulator.caCertificate!);
    expect(certificate.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(certificate.checkHost('localhost')).toBe('localhost');
    expect(await namespaces(emulator)).toContain('default');
    expect(emulator.kubeConfigYaml()).toContain('certificate-authority-data');
  });

  it('a client that does not trust the certificate is refused', async () => {
    emulator = await startKubeEmulator({ tls: true });
    await expect(fetch(`${emulator.url}/version`)).rejects.toThrow();
  });
});

describe('startKubeEmulator({ tls: { cert, key } }) serves the certificate it is given', () => {
  it('is the certificate the kubeconfig carries and clients verify', async () => {
    const given = await generateTlsCertificate('127.0.0.1');
    emulator = await startKubeEmulator({ tls: given });
    expect(emulator.caCertificate).toBe(given.cert);
    expect(await namespaces(emulator)).toContain('default');
  });
});
