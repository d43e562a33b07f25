// The ServiceAccount watch that feeds the claim index (spec: OIDC users are mapped to ServiceAccounts by
// their claim annotations, kept current by a watch, 503 until the first list is loaded): it follows
// additions, changes and deletions; a failed list leaves the index unsynced and is retried with a
// doubling delay (1 s, 2 s, … 30 s), said in the log; once stopped, nothing more is read.
import { createServer, request as forward, type Server } from 'node:http';
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceAccountClaimIndex } from '../../../shared/authz/service-account-claim-index.ts';
import { claimAnnotationNames } from '../../../shared/authz/service-account-claims.ts';
import { watchServiceAccounts } from '../../../shared/authz/service-account-watch.ts';
import { listen } from '../../../knative/node-http/limited-http-server.ts';
import { capturingLogger, silentLogger } from '../../support/function-servers.ts';
import { startIdentityCluster, TEST_NAMESPACE, type IdentityCluster } from '../../support/identity-cluster.ts';
import { emulatorKubeConfig } from '../../../infra/kube-emulator/kubeconfig.ts';

const EMAIL = 'platform.dev/claim.email';
const WARNING = 'ServiceAccount watch failed; claim mappings keep their last known state until it recovers';

let cluster: IdentityCluster;
let core: CoreV1Api;
/** Between the watch and the emulator: answers 503 to everything while `failing`, else passes requests through. */
let proxy: Server;
let proxyUrl: string;
let failing = false;

beforeAll(async () => {
  cluster = await startIdentityCluster();
  core = cluster.emulator.kubeConfig().makeApiClient(CoreV1Api);
  const upstream = new URL(cluster.emulator.url);
  proxy = createServer((incoming, outgoing) => {
    if (failing) {
      incoming.resume();
      outgoing.writeHead(503, { 'content-type': 'application/json' }).end('{"kind":"Status","code":503}');
      return;
    }
    const passed = forward(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: incoming.method,
        path: incoming.url,
        headers: incoming.headers,
      },
      (answer) => {
        // A watch answers its headers before any event: pass them on at once.
        outgoing.writeHead(answer.statusCode!, answer.headers).flushHeaders();
        answer.pipe(outgoing);
      },
    );
    passed.on('error', () => outgoing.destroy());
    outgoing.on('close', () => passed.destroy());
    incoming.pipe(passed);
  });
  proxyUrl = `http://127.0.0.1:${await listen(proxy, 0, '127.0.0.1')}`;
});
afterAll(async () => {
  proxy.closeAllConnections();
  await new Promise((resolve) => proxy.close(resolve));
  await cluster.close();
});

/** The emulator's admin kubeconfig, through the proxy. */
const proxiedKubeConfig = () => emulatorKubeConfig({ server: proxyUrl }, cluster.emulator.adminToken);

/** The names of the ServiceAccounts an OIDC user with this email is mapped to (a fresh claims object: no memo). */
const mappedTo = (index: ServiceAccountClaimIndex, email: string) =>
  index.serviceAccountsFor({ email }).map((account) => account.name);

async function eventually(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const warnings = (lines: string[]) => lines.map((line) => JSON.parse(line)).filter((line) => line.message === WARNING);

describe('the watch follows the ServiceAccounts: added, changed and deleted mappings take effect', () => {
  it('an annotated ServiceAccount maps once created, follows its annotation when changed, and unmaps when deleted', async () => {
    const index = new ServiceAccountClaimIndex(claimAnnotationNames('platform.dev'), silentLogger);
    const watch = watchServiceAccounts(cluster.emulator.kubeConfig(), index, silentLogger);
    try {
      await watch.firstAttempt;
      expect(index.synced).toBe(true);
      await cluster.createServiceAccount('followed', { [EMAIL]: 'first@example.com' });
      await eventually(() => mappedTo(index, 'first@example.com').includes('followed'));
      await cluster.setAnnotations('followed', { [EMAIL]: 'second@example.com' });
      await eventually(() => mappedTo(index, 'second@example.com').includes('followed'));
      expect(mappedTo(index, 'first@example.com')).toEqual([]);
      await core.deleteNamespacedServiceAccount({ namespace: TEST_NAMESPACE, name: 'followed' });
      await eventually(() => mappedTo(index, 'second@example.com').length === 0);
    } finally {
      await watch.stop();
    }
  });
});

describe('a failed list: unsynced, retried after 1 s, then 2 s, said in the log; loaded once the cluster answers', () => {
  it('the first attempt settles unsynced; the retries double; the index loads when the cluster is back', async () => {
    await cluster.createServiceAccount('after-outage', { [EMAIL]: 'outage@example.com' });
    const logger = capturingLogger();
    const index = new ServiceAccountClaimIndex(claimAnnotationNames('platform.dev'), logger);
    failing = true;
    const watch = watchServiceAccounts(proxiedKubeConfig(), index, logger);
    try {
      await watch.firstAttempt;
      expect(index.synced).toBe(false);
      await eventually(() => warnings(logger.lines).length === 2, 3_000);
      expect(index.synced).toBe(false);
      expect(warnings(logger.lines).map(({ retryInMs, detail }) => ({ retryInMs, detail }))).toEqual([
        { retryInMs: 1_000, detail: expect.stringMatching(/./) },
        { retryInMs: 2_000, detail: expect.stringMatching(/./) },
      ]);
      failing = false;
      await eventually(() => index.synced, 4_000);
      expect(mappedTo(index, 'outage@example.com')).toEqual(['after-outage']);
      expect(warnings(logger.lines)).toHaveLength(2);
    } finally {
      failing = false;
      await watch.stop();
    }
  });
});

describe('stop: nothing more is read, and no restart follows', () => {
  it('stopped while a retry is pending: the retry never runs, even once the cluster answers', async () => {
    await cluster.createServiceAccount('never-read', { [EMAIL]: 'never@example.com' });
    const logger = capturingLogger();
    const index = new ServiceAccountClaimIndex(claimAnnotationNames('platform.dev'), logger);
    failing = true;
    const watch = watchServiceAccounts(proxiedKubeConfig(), index, logger);
    await watch.firstAttempt;
    await watch.stop();
    failing = false;
    await sleep(1_500);
    expect({ synced: index.synced, mapped: mappedTo(index, 'never@example.com') }).toEqual({
      synced: false,
      mapped: [],
    });
    expect(warnings(logger.lines)).toHaveLength(1);
  });

  it('stopped while watching: later changes do not reach the index, and the closed watch is not restarted', async () => {
    const logger = capturingLogger();
    const index = new ServiceAccountClaimIndex(claimAnnotationNames('platform.dev'), logger);
    const watch = watchServiceAccounts(cluster.emulator.kubeConfig(), index, logger);
    await watch.firstAttempt;
    expect(index.synced).toBe(true);
    await watch.stop();
    await cluster.createServiceAccount('after-stop', { [EMAIL]: 'late@example.com' });
    await sleep(1_500);
    expect({ mapped: mappedTo(index, 'late@example.com'), warnings: warnings(logger.lines) }).toEqual({
      mapped: [],
      warnings: [],
    });
  });
});
