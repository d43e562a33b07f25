// Issue 38, item 14: a client closing its watch is normal. Every closed watch logged an error-level
// "Kubernetes API did not answer" (the abort of the server's own watch of the cluster read as a
// failed call); a cluster that really does not answer is still logged.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKubeEmulator, type KubeEmulator } from '../../../infra/kube-emulator/index.ts';
import { KubernetesRestClient } from '../../../shared/base/kubernetes/kubernetes-rest-client.ts';
import { installPlatformCrds } from '../../../shared/domain/resources/platform-crds.ts';
import type { RunningServer } from '../../../knative/node-http/running-server.ts';
import { capturingLogger, freePort, loginToken, startTestGateway } from '../../support/function-servers.ts';

const errorLines = (lines: string[]) =>
  lines.filter((line) => (JSON.parse(line) as { level: string }).level === 'error');

let emulator: KubeEmulator;
beforeAll(async () => {
  emulator = await startKubeEmulator();
});
afterAll(() => emulator.close());

describe('the server closing its watch of the cluster is not an error', () => {
  it('a watch aborted by its signal (the caller gone) logs nothing at error level', async () => {
    const logger = capturingLogger();
    const client = new KubernetesRestClient(emulator.kubeConfig(), logger);
    const stop = new AbortController();
    const opened = await client.watch(
      { method: 'GET', path: '/api/v1/namespaces', query: new URLSearchParams({ watch: 'true' }) },
      stop.signal,
    );
    if (!('events' in opened)) throw new Error(`the watch was refused: ${opened.status}`);
    const events = opened.events[Symbol.asyncIterator]();
    expect((await events.next()).done).toBe(false);
    stop.abort();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(errorLines(logger.lines)).toEqual([]);
  });

  it('a cluster that does not answer is still logged at error level', async () => {
    const logger = capturingLogger();
    const port = await freePort();
    const kubeConfig = emulator.kubeConfig();
    kubeConfig.clusters[0] = { ...kubeConfig.clusters[0]!, server: `http://127.0.0.1:${port}` };
    const client = new KubernetesRestClient(kubeConfig, logger);
    await expect(
      client.watch(
        { method: 'GET', path: '/api/v1/namespaces', query: new URLSearchParams({ watch: 'true' }) },
        new AbortController().signal,
      ),
    ).rejects.toMatchObject({ reason: 'KubernetesUnavailable' });
    expect(errorLines(logger.lines).join('\n')).toContain('Kubernetes API did not answer');
  });
});

describe('a client closing its watch through the API (kubectl get -w, Ctrl-C)', () => {
  let gateway: RunningServer;
  const logger = capturingLogger();
  beforeAll(async () => {
    await installPlatformCrds(emulator.kubeConfig(), 'platform.dev');
    gateway = await startTestGateway({ NODE_ENV: 'development' }, { logger, kubeConfig: emulator.kubeConfig() });
  });
  afterAll(() => gateway.close());

  it('logs nothing at error level when the client goes away', async () => {
    const token = await loginToken(gateway.url);
    const { port } = new URL(gateway.url);
    const watch = request({
      host: '127.0.0.1',
      port,
      path: '/apis/platform.dev/v1alpha1/namespaces/default/workspaces?watch=true',
      headers: { authorization: `Bearer ${token}` },
    });
    const firstChunk = new Promise<number>((resolve, reject) => {
      watch.on('response', (incoming) => {
        resolve(incoming.statusCode ?? 0);
        incoming.on('error', () => {});
      });
      watch.on('error', reject);
    });
    watch.end();
    expect(await firstChunk).toBe(200);
    watch.destroy();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(errorLines(logger.lines)).toEqual([]);
  });
});
