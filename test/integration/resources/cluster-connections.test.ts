// The server's calls to the Kubernetes API reuse their connections (HTTP keep-alive), as client-go
// does: a new TCP connection, and over TLS a new handshake, for every call of every request would
// cost the function more than the request itself. So do the generated clients' calls
// (SubjectAccessReview, TokenReview). The cluster here is a node:http(s) server that counts the
// connections it accepts; what it answers is beside the point.
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { AuthorizationV1Api } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { generateTlsCertificate } from '../../../infra/kube-emulator/self-signed-certificate.ts';
import { emulatorKubeConfig } from '../../../infra/kube-emulator/kubeconfig.ts';
import { connectToCluster } from '../../../shared/base/kubernetes/cluster-connection.ts';
import { KubernetesRestClient } from '../../../shared/base/kubernetes/kubernetes-rest-client.ts';
import { silentLogger } from '../../support/function-servers.ts';

const NAMESPACE_PATH = '/api/v1/namespaces/default';

interface CountingCluster {
  url: string;
  connections: () => number;
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function countingCluster(server: Server, protocol: 'http' | 'https'): Promise<CountingCluster> {
  let connections = 0;
  server.on(protocol === 'https' ? 'secureConnection' : 'connection', () => connections++);
  server.on('request', (_request, response) => {
    response.setHeader('content-type', 'application/json');
    // What a SubjectAccessReview answers; the raw REST calls look at the status only.
    response.end(
      JSON.stringify({
        kind: 'SubjectAccessReview',
        apiVersion: 'authorization.k8s.io/v1',
        spec: { user: 'alice' },
        status: { allowed: true },
      }),
    );
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `${protocol}://127.0.0.1:${(server.address() as AddressInfo).port}`, connections: () => connections };
}

async function callTimes(client: KubernetesRestClient, times: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let call = 0; call < times; call++)
    statuses.push((await client.call({ method: 'GET', path: NAMESPACE_PATH })).status);
  return statuses;
}

describe('calls to the cluster keep their connection (performance: no connection per call)', () => {
  it('five calls in a row over plain HTTP use one connection', async () => {
    const cluster = await countingCluster(createHttpServer(), 'http');
    const client = new KubernetesRestClient(emulatorKubeConfig({ server: cluster.url }, 'token'), silentLogger);
    expect(await callTimes(client, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(cluster.connections()).toBe(1);
  });

  it('five calls in a row over TLS use one connection and one handshake, still verified against the kubeconfig CA', async () => {
    const certificate = await generateTlsCertificate('127.0.0.1');
    const cluster = await countingCluster(createHttpsServer(certificate), 'https');
    const trusted = emulatorKubeConfig({ server: cluster.url, certificateAuthority: certificate.cert }, 'token');
    expect(await callTimes(new KubernetesRestClient(trusted, silentLogger), 5)).toEqual([200, 200, 200, 200, 200]);
    expect(cluster.connections()).toBe(1);

    // A kept connection is no way around verification: another CA is refused (no answer: 503).
    const other = await generateTlsCertificate('127.0.0.1');
    const untrusting = emulatorKubeConfig({ server: cluster.url, certificateAuthority: other.cert }, 'token');
    await expect(callTimes(new KubernetesRestClient(untrusting, silentLogger), 1)).rejects.toMatchObject({
      status: 503,
    });
  });

  it('a connection the cluster closed while idle is not used again: the next call opens another', async () => {
    const server = createHttpServer();
    server.keepAliveTimeout = 50;
    const cluster = await countingCluster(server, 'http');
    const client = new KubernetesRestClient(emulatorKubeConfig({ server: cluster.url }, 'token'), silentLogger);
    expect(await callTimes(client, 1)).toEqual([200]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await callTimes(client, 1)).toEqual([200]);
    expect(cluster.connections()).toBe(2);
  });
});

describe("the generated clients' calls share connections too", () => {
  it('ten SubjectAccessReviews in a row over TLS reuse their connections (client-node made an undici Agent, so a connection, per call)', async () => {
    const certificate = await generateTlsCertificate('127.0.0.1');
    const cluster = await countingCluster(createHttpsServer(certificate), 'https');
    const given = emulatorKubeConfig({ server: cluster.url, certificateAuthority: certificate.cert }, 'token');
    const settings = { kubeconfig: undefined, inCluster: false };
    const { kubeConfig } = await connectToCluster(settings, { production: true }, silentLogger, { given });
    // Connecting twice with one KubeConfig (functions of one process) shares as once.
    await connectToCluster(settings, { production: true }, silentLogger, { given });
    const reviews = kubeConfig.makeApiClient(AuthorizationV1Api);
    for (let call = 0; call < 10; call++) {
      const review = await reviews.createSubjectAccessReview({
        body: { spec: { user: 'alice', resourceAttributes: { verb: 'get', resource: 'workspaces' } } },
      });
      expect(review.status?.allowed).toBe(true);
    }
    // undici hands a connection back to its pool a moment after the client has read the answer, so
    // the second call may open a second one; from then on the two are reused.
    expect(cluster.connections()).toBeLessThanOrEqual(2);
  });
});
