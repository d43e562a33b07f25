// The optional identity bridge under /bridge/: forwarded unauthenticated, streaming, path kept;
// 404 when none is configured; usable as the OIDC issuer.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../../knative/node-http/running-server.ts';
import { adminEnv } from '../../support/admin-fixtures.ts';
import { getWithToken, startTestGateway } from '../../support/function-servers.ts';
import { startIdentityCluster, type IdentityCluster } from '../../support/identity-cluster.ts';
import { startStaticOidcIssuer, type StaticOidcIssuer } from '../../support/static-oidc-issuer.ts';

async function startUpstream(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ url: string; server: Server }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('Optional identity bridge: everything under /bridge/ is unauthenticated', () => {
  it('answers 404 (BridgeNotConfigured) when BRIDGE_UPSTREAM_URL is not set', async () => {
    const gateway = await startTestGateway(adminEnv());
    try {
      const response = await fetch(`${gateway.url}/bridge/.well-known/openid-configuration`);
      expect(response.status).toBe(404);
      expect(((await response.json()) as { reason: string }).reason).toBe('BridgeNotConfigured');
    } finally {
      await gateway.close();
    }
  });

  describe('with BRIDGE_UPSTREAM_URL set', () => {
    let upstream: { url: string; server: Server };
    let gateway: RunningServer;
    let releaseSecondChunk: () => void = () => {};

    beforeAll(async () => {
      upstream = await startUpstream((req, res) => {
        if (req.url === '/bridge/stream') {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.write('first\n');
          releaseSecondChunk = () => res.end('second\n');
          return;
        }
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
          res.writeHead(201, { 'content-type': 'application/json', 'x-upstream': 'bridge' });
          res.end(
            JSON.stringify({
              method: req.method,
              url: req.url,
              body: Buffer.concat(chunks).toString(),
              authorization: req.headers.authorization ?? null,
            }),
          );
        });
      });
      gateway = await startTestGateway(adminEnv({ BRIDGE_UPSTREAM_URL: upstream.url }));
    });
    afterAll(async () => {
      await gateway.close();
      upstream.server.closeAllConnections();
      await new Promise((resolve) => upstream.server.close(resolve));
    });

    it("forwards without a token, keeping method, path, query, body and the answer's status and headers", async () => {
      const response = await fetch(`${gateway.url}/bridge/token?x=1&y=two`, {
        method: 'POST',
        body: 'grant_type=authorization_code',
      });
      expect(response.status).toBe(201);
      expect(response.headers.get('x-upstream')).toBe('bridge');
      expect(await response.json()).toEqual({
        method: 'POST',
        url: '/bridge/token?x=1&y=two',
        body: 'grant_type=authorization_code',
        authorization: null,
      });
    });

    it('streams: the first chunk arrives before the upstream has finished', async () => {
      const response = await fetch(`${gateway.url}/bridge/stream`);
      const reader = response.body!.getReader();
      const first = await reader.read();
      expect(new TextDecoder().decode(first.value)).toBe('first\n');
      releaseSecondChunk();
      let rest = '';
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
        rest += new TextDecoder().decode(chunk.value);
      expect(rest).toBe('second\n');
    });
  });
});

describe('The bridge as OIDC issuer (<API_BASE_URL>/bridge): keys fetched through the in-cluster address', () => {
  const PUBLIC_URL = 'https://platform.example.test';
  let cluster: IdentityCluster;
  let bridge: StaticOidcIssuer & { close(): Promise<void> };
  let gateway: RunningServer;

  beforeAll(async () => {
    cluster = await startIdentityCluster();
    await cluster.createServiceAccount('platform-admin', { 'platform.dev/claim.groups': 'platform-eng' });
    await cluster.allowPaths('platform-admin', ['/internal/*'], ['get']);
    bridge = await startStaticOidcIssuer({ issuer: `${PUBLIC_URL}/bridge`, pathPrefix: '/bridge' });
    // The public URL does not resolve from here, as an ingress address may not from inside the cluster.
    gateway = await startTestGateway(
      adminEnv({
        API_BASE_URL: PUBLIC_URL,
        BRIDGE_UPSTREAM_URL: bridge.url,
        OIDC_ISSUER_URL: `${PUBLIC_URL}/bridge`,
        OIDC_CLIENT_ID: 'platform-web',
      }),
      { kubeConfig: cluster.emulator.kubeConfig() },
    );
  });
  afterAll(async () => {
    await gateway.close();
    await bridge.close();
    await cluster.close();
  });

  it('verifies a bridge-issued ID token and authorizes the mapped user', async () => {
    const token = await bridge.sign({ aud: 'platform-web', sub: 'alice', groups: ['platform-eng'] });
    const response = await getWithToken(gateway.url, '/internal/ping', token);
    expect(response.status, await response.clone().text()).toBe(404);
    // Fetched at the bridge's own address; clients reading discovery through the gateway may add requests of their own.
    expect(bridge.requests).toEqual(
      expect.arrayContaining(['/bridge/.well-known/openid-configuration', '/bridge/keys']),
    );
    expect(bridge.requests.filter((path) => path === '/bridge/keys')).toEqual(['/bridge/keys']);
  });

  it('the same discovery document is reachable by clients through the gateway', async () => {
    const response = await fetch(`${gateway.url}/bridge/.well-known/openid-configuration`);
    expect(((await response.json()) as { issuer: string }).issuer).toBe(`${PUBLIC_URL}/bridge`);
  });
});
