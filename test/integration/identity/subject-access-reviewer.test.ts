// The SubjectAccessReview the server sends for a request: against the Kubernetes emulator's RBAC
// (allowed exactly when a Role allows it), and as the cluster receives it (the reviewed user with
// every attribute of the request), and 503 when the cluster cannot answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { KubernetesSubjectAccessReviewer, type ReviewSubject } from '../../../shared/authz/subject-access-reviewer.ts';
import { ApiError } from '../../../shared/base/http/api-error.ts';
import { listen } from '../../../knative/node-http/limited-http-server.ts';
import { capturingLogger, silentLogger } from '../../support/function-servers.ts';
import { startIdentityCluster, TEST_NAMESPACE, type IdentityCluster } from '../../support/identity-cluster.ts';
import { emulatorKubeConfig } from '../../../infra/kube-emulator/kubeconfig.ts';

const GROUP = 'platform.dev';
const account = (name: string): ReviewSubject => ({
  user: `system:serviceaccount:${TEST_NAMESPACE}:${name}`,
  groups: ['system:serviceaccounts', `system:serviceaccounts:${TEST_NAMESPACE}`, 'system:authenticated'],
});

/** A kubeconfig for a plain-HTTP endpoint. */
const kubeConfigFor = (server: string) => emulatorKubeConfig({ server }, 'reviewer-token');

describe("SubjectAccessReview against the cluster's RBAC: allowed exactly when a Role or ClusterRole allows the request", () => {
  let cluster: IdentityCluster;
  let reviewer: KubernetesSubjectAccessReviewer;

  beforeAll(async () => {
    cluster = await startIdentityCluster();
    await cluster.createServiceAccount('reader');
    await cluster.allowPaths('reader', ['/internal/runs'], ['get']);
    const rbac = cluster.emulator.kubeConfig().makeApiClient(RbacAuthorizationV1Api);
    await rbac.createNamespacedRole({
      namespace: TEST_NAMESPACE,
      body: {
        metadata: { name: 'read-workspaces' },
        rules: [{ apiGroups: [GROUP], resources: ['workspaces', 'workspaces/log'], verbs: ['get'] }],
      },
    });
    await rbac.createNamespacedRoleBinding({
      namespace: TEST_NAMESPACE,
      body: {
        metadata: { name: 'read-workspaces' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'read-workspaces' },
        subjects: [{ kind: 'ServiceAccount', namespace: TEST_NAMESPACE, name: 'reader' }],
      },
    });
    reviewer = new KubernetesSubjectAccessReviewer(cluster.emulator.kubeConfig(), silentLogger);
  });
  afterAll(() => cluster.close());

  it.each([
    [
      'get a Workspace in its namespace',
      { verb: 'get', group: GROUP, resource: 'workspaces', namespace: TEST_NAMESPACE, name: 'w' },
      true,
    ],
    [
      "get a Workspace's log",
      { verb: 'get', group: GROUP, resource: 'workspaces', subresource: 'log', namespace: TEST_NAMESPACE, name: 'w' },
      true,
    ],
    [
      'delete a Workspace',
      { verb: 'delete', group: GROUP, resource: 'workspaces', namespace: TEST_NAMESPACE, name: 'w' },
      false,
    ],
    [
      'get a Workspace in another namespace',
      { verb: 'get', group: GROUP, resource: 'workspaces', namespace: 'elsewhere', name: 'w' },
      false,
    ],
    [
      'get the status subresource',
      {
        verb: 'get',
        group: GROUP,
        resource: 'workspaces',
        subresource: 'status',
        namespace: TEST_NAMESPACE,
        name: 'w',
      },
      false,
    ],
    ['get /internal/runs', { nonResourcePath: '/internal/runs', verb: 'get' }, true],
    ['post /internal/runs', { nonResourcePath: '/internal/runs', verb: 'post' }, false],
    ['get /internal/other', { nonResourcePath: '/internal/other', verb: 'get' }, false],
  ] as const)('%s → allowed %s', async (_name, attributes, allowed) => {
    expect(await reviewer.review(account('reader'), attributes)).toBe(allowed);
  });

  it('denies a ServiceAccount with no binding at all', async () => {
    expect(
      await reviewer.review(account('nobody'), {
        verb: 'get',
        group: GROUP,
        resource: 'workspaces',
        namespace: TEST_NAMESPACE,
      }),
    ).toBe(false);
  });
});

describe('The review as the cluster receives it: the subject and every attribute of the request; allowed only when allowed and not denied', () => {
  let server: Server;
  let received: Array<{ path: string; body: any }> = [];
  let answer: Record<string, unknown> = { allowed: true };
  let reviewer: KubernetesSubjectAccessReviewer;

  beforeAll(async () => {
    server = createServer((request, response) => {
      let text = '';
      request.on('data', (chunk) => (text += chunk));
      request.on('end', () => {
        const body = JSON.parse(text);
        received.push({ path: request.url!, body });
        response.writeHead(201, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ ...body, status: answer }));
      });
    });
    const port = await listen(server, 0, '127.0.0.1');
    reviewer = new KubernetesSubjectAccessReviewer(kubeConfigFor(`http://127.0.0.1:${port}`), silentLogger);
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const send = async (subject: ReviewSubject, attributes: Parameters<KubernetesSubjectAccessReviewer['review']>[1]) => {
    received = [];
    const allowed = await reviewer.review(subject, attributes);
    expect(received).toHaveLength(1);
    return { allowed, review: received[0]! };
  };

  it('sends user, uid, groups and extra with the resource attributes', async () => {
    answer = { allowed: true };
    const { allowed, review } = await send(
      {
        user: 'system:serviceaccount:ops:ci',
        uid: 'u-1',
        groups: ['g'],
        extra: { 'authentication.kubernetes.io/pod-name': ['p'] },
      },
      { verb: 'get', group: GROUP, resource: 'workspaces', subresource: 'log', namespace: 'team', name: 'web' },
    );
    expect(allowed).toBe(true);
    expect(review.path).toBe('/apis/authorization.k8s.io/v1/subjectaccessreviews');
    expect(review.body).toEqual({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        user: 'system:serviceaccount:ops:ci',
        uid: 'u-1',
        groups: ['g'],
        extra: { 'authentication.kubernetes.io/pod-name': ['p'] },
        resourceAttributes: {
          verb: 'get',
          group: GROUP,
          resource: 'workspaces',
          subresource: 'log',
          namespace: 'team',
          name: 'web',
        },
      },
    });
  });

  it('sends no uid or extra for a subject without them, and a non-resource path as nonResourceAttributes', async () => {
    answer = { allowed: true };
    const { review } = await send({ user: 'u', groups: [] }, { nonResourcePath: '/internal/runs', verb: 'post' });
    expect(review.body.spec).toEqual({
      user: 'u',
      groups: [],
      nonResourceAttributes: { path: '/internal/runs', verb: 'post' },
    });
  });

  it.each([
    ['allowed', { allowed: true }, true],
    ['allowed and denied', { allowed: true, denied: true }, false],
    ['not allowed', { allowed: false }, false],
    ['denied', { allowed: false, denied: true }, false],
    ['no decision', {}, false],
  ])('%s → %s', async (_name, status, allowed) => {
    answer = status;
    expect((await send({ user: 'u', groups: [] }, { nonResourcePath: '/internal/runs', verb: 'get' })).allowed).toBe(
      allowed,
    );
  });
});

describe('A review answered without a status is a denial', () => {
  it('denies when the cluster answers no status at all', async () => {
    const server = createServer((request, response) => {
      request.resume();
      request.on('end', () =>
        response
          .writeHead(201, { 'content-type': 'application/json' })
          .end(JSON.stringify({ apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: {} })),
      );
    });
    const port = await listen(server, 0, '127.0.0.1');
    try {
      expect(
        await new KubernetesSubjectAccessReviewer(kubeConfigFor(`http://127.0.0.1:${port}`), silentLogger).review(
          { user: 'u', groups: [] },
          { nonResourcePath: '/internal/runs', verb: 'get' },
        ),
      ).toBe(false);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('A review the cluster cannot answer is 503 KubernetesUnavailable, never a denial or an allow', () => {
  it('answers 503 when the cluster is unreachable', async () => {
    const cluster = await startIdentityCluster();
    const kubeConfig = cluster.emulator.kubeConfig();
    await cluster.close();
    const logger = capturingLogger();
    const error = await new KubernetesSubjectAccessReviewer(kubeConfig, logger)
      .review({ user: 'u', groups: [] }, { nonResourcePath: '/internal/runs', verb: 'get' })
      .catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(ApiError);
    expect([(error as ApiError).status, (error as ApiError).reason]).toEqual([503, 'KubernetesUnavailable']);
    expect(logger.lines.map((line) => JSON.parse(line).message)).toEqual([
      'Kubernetes API did not answer a SubjectAccessReview',
    ]);
  });
});
