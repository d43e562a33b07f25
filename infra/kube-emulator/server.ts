// The emulator's HTTP server: authenticates every request, authorizes it like kube-apiserver, and dispatches to
// discovery, the review APIs, TokenRequest, watches or the resource handler.
import { randomBytes } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { KubeConfig } from '@kubernetes/client-node';
import { handleAccessReview } from './reviews/access-review.ts';
import { authorize } from './rbac/authorizer-chain.ts';
import { seedBootstrapPolicy } from './rbac/bootstrap-policy.ts';
import { runCrdController } from './objects/crd-controller.ts';
import { discoveryDocument } from './http/discovery.ts';
import type { EmulatorContext, EmulatorCounters, RecordedRequest } from './emulator-context.ts';
import { readBody, sendJson, sendStatus } from './http/http-messages.ts';
import type { JsonReply } from './http/http-messages.ts';
import { emulatorKubeConfig, emulatorKubeConfigYaml } from './kubeconfig.ts';
import type { EmulatorEndpoint } from './kubeconfig.ts';
import { runNamespaceController } from './objects/namespace-controller.ts';
import { RbacAuthorizer } from './rbac/rbac-authorizer.ts';
import { readSavedState, saveOnChange, writeSavedState } from './storage/persisted-store.ts';
import { parseRequestInfo } from './http/request-info.ts';
import type { RequestInfo } from './http/request-info.ts';
import { handleResourceRequest } from './http/resource-handler.ts';
import { ResourceRegistry } from './objects/resource-registry.ts';
import { ResourceStore } from './storage/resource-store.ts';
import { ServiceAccountTokens } from './reviews/service-account-tokens.ts';
import { generateTlsCertificate, type TlsCertificate } from './self-signed-certificate.ts';
import {
  KubeStatusError,
  forbidden,
  methodNotAllowed,
  pathNotFound,
  unauthorized,
  unsupportedMediaType,
} from './http/status.ts';
import { TokenAuthenticator } from './reviews/token-authenticator.ts';
import type { RegisteredUser } from './reviews/token-authenticator.ts';
import { handleTokenRequest } from './reviews/token-request.ts';
import { handleSelfSubjectReview, handleTokenReview } from './reviews/token-review.ts';
import type { UserInfo } from './reviews/user-info.ts';
import { WatchHub } from './watch/watch.ts';
import { serveWatch } from './watch/watch-stream.ts';

export interface KubeEmulatorOptions {
  /** Port on 127.0.0.1 (0, the default, picks a free one). */
  port?: number;
  host?: string;
  /** `iss` of issued ServiceAccount tokens and of the published OpenID configuration. */
  serviceAccountIssuer?: string;
  /**
   * Serve HTTPS: `true` with a self-signed certificate made at start for 127.0.0.1, localhost and the
   * emulator's host (the openssl CLI, valid one day), or with the certificate given (its own CA).
   * client-go (kubectl, helm) sends bearer tokens only over TLS, so they need this; the kubeconfigs
   * then trust that certificate.
   */
  tls?: true | TlsCertificate;
  /**
   * A file that holds the objects across restarts: read at start when present, rewritten after
   * every change. Without it the state lives and dies with the process.
   */
  statePath?: string;
}

export interface KubeEmulator {
  /** http://<host>:<port>, or https:// with `tls`. */
  url: string;
  /** PEM of the self-signed serving certificate (its own CA) with `tls`, for clients other than the kubeconfigs. */
  caCertificate?: string;
  /** A bearer token with full rights (system:masters). */
  adminToken: string;
  /** A client-node KubeConfig pointing at the emulator with `token` (default: the admin token). */
  kubeConfig(token?: string): KubeConfig;
  /** The same as kubeconfig file text, for helm and kubectl. */
  kubeConfigYaml(token?: string): string;
  /** Calls `listener` with every authenticated request as received (an audit log); answers the function that stops it. */
  observeRequests(listener: (request: RecordedRequest) => void): () => void;
  /** Makes `token` authenticate (for callers and TokenReview) as `user`; RBAC then decides what it may do. */
  registerToken(token: string, user: RegisteredUser): void;
  serviceAccountIssuer: string;
  counters: EmulatorCounters;
  close(): Promise<void>;
}

const DEFAULT_ISSUER = 'https://kubernetes.default.svc.cluster.local';

function forbiddenMessage(user: UserInfo, info: RequestInfo, reason: string): string {
  const resource = info.subresource ? `${info.resource}/${info.subresource}` : info.resource;
  const message = !info.isResourceRequest
    ? `User "${user.username}" cannot ${info.verb} path "${info.path}"`
    : info.namespace
      ? `User "${user.username}" cannot ${info.verb} resource "${resource}" in API group "${info.group}" in the namespace "${info.namespace}"`
      : `User "${user.username}" cannot ${info.verb} resource "${resource}" in API group "${info.group}" at the cluster scope`;
  return reason ? `${message}: ${reason}` : message;
}

async function authenticateCaller(context: EmulatorContext, request: IncomingMessage): Promise<UserInfo> {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  if (!match) throw unauthorized();
  const check = await context.authenticator.authenticate(match[1]!);
  if ('error' in check) throw unauthorized();
  return check.user;
}

async function dispatch(
  context: EmulatorContext,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<JsonReply | undefined> {
  const url = new URL(request.url ?? '/', context.url);
  const user = await authenticateCaller(context, request);
  const info = parseRequestInfo(request.method ?? 'GET', url);
  const body = await readBody(request);
  for (const observe of context.requestObservers)
    observe({ method: request.method ?? 'GET', rawUrl: request.url ?? '/', user: user.username, info, body });
  const decision = authorize(context.authorizer, { ...info, name: info.authorizationName, user });
  if (!decision.allowed) {
    const group = info.isResourceRequest ? { group: info.group, resource: info.resource } : undefined;
    throw forbidden(group, info.name, forbiddenMessage(user, info, decision.reason));
  }
  if (!info.isResourceRequest) {
    const document = discoveryDocument(context, info.path, request.headers.accept ?? '');
    if (!document) throw pathNotFound();
    return document;
  }
  const type = context.registry.find(info.group, info.version, info.resource);
  if (!type) throw pathNotFound();
  if (info.verb === 'watch') {
    serveWatch(context, type, info, url, request, response);
    return undefined;
  }
  const contentType = (request.headers['content-type'] ?? 'application/json').split(';')[0]!.trim();
  // Only JSON bodies are understood: protobuf (kubectl's typed clients send it, e.g. `kubectl auth can-i`) gets a
  // 415 naming the supported type instead of a misleading JSON parse error.
  if ((info.verb === 'create' || info.verb === 'update') && contentType !== 'application/json')
    throw unsupportedMediaType(['application/json']);
  if (!type.stored) {
    if (info.verb !== 'create') throw methodNotAllowed();
    if (info.resource === 'tokenreviews') return handleTokenReview(context, body);
    if (info.resource === 'selfsubjectreviews') return handleSelfSubjectReview(user);
    return handleAccessReview(context, info, body, user);
  }
  if (info.resource === 'serviceaccounts' && info.subresource === 'token') {
    if (info.verb !== 'create') throw methodNotAllowed();
    return handleTokenRequest(context, info, body);
  }
  return handleResourceRequest(context, user, type, info, url, body, contentType);
}

/** Starts an emulated Kubernetes API server on 127.0.0.1 with the bootstrap namespaces and roles. */
export async function startKubeEmulator(options: KubeEmulatorOptions = {}): Promise<KubeEmulator> {
  const host = options.host ?? '127.0.0.1';
  const serviceAccountIssuer = options.serviceAccountIssuer ?? DEFAULT_ISSUER;
  const adminToken = randomBytes(24).toString('base64url');
  const registry = new ResourceRegistry();
  const store = new ResourceStore();
  const saved = options.statePath ? await readSavedState(options.statePath) : undefined;
  if (saved) store.restore(saved);
  const watches = new WatchHub(store);
  runCrdController(store, registry);
  runNamespaceController(store, registry);
  if (!saved) seedBootstrapPolicy(store, registry);
  const persistence = options.statePath ? saveOnChange(store, options.statePath) : undefined;
  // A fresh state is saved at once, so that the next start restores it rather than seeding again.
  if (options.statePath && !saved) await writeSavedState(store, options.statePath);
  const serviceAccountTokens = await ServiceAccountTokens.create(serviceAccountIssuer);
  const serviceAccounts = registry.get('', 'serviceaccounts')!;
  const authenticator = new TokenAuthenticator(
    adminToken,
    serviceAccountTokens,
    (namespace, name) => store.find(serviceAccounts, namespace, name)?.metadata.uid,
  );
  const counters: EmulatorCounters = { tokenReviews: 0, subjectAccessReviews: 0, requests: 0 };
  const context: EmulatorContext = {
    url: '',
    registry,
    store,
    watches,
    authenticator,
    serviceAccountTokens,
    authorizer: new RbacAuthorizer(store, registry),
    counters,
    requestObservers: new Set(),
  };

  const handle: RequestListener = (request, response) => {
    counters.requests++;
    dispatch(context, request, response).then(
      (reply) => {
        if (reply) sendJson(response, reply);
      },
      (error: unknown) => {
        if (response.headersSent) return void response.end();
        sendStatus(
          response,
          error instanceof KubeStatusError
            ? error
            : new KubeStatusError(500, 'InternalError', `Internal error occurred: ${(error as Error).message}`),
        );
      },
    );
  };
  const certificate = options.tls === true ? await generateTlsCertificate(host) : options.tls;
  const server: Server = certificate ? createHttpsServer(certificate, handle) : createHttpServer(handle);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  context.url = `${certificate ? 'https' : 'http'}://${host}:${port}`;
  const endpoint: EmulatorEndpoint = { server: context.url, certificateAuthority: certificate?.cert };

  return {
    url: context.url,
    caCertificate: certificate?.cert,
    adminToken,
    kubeConfig: (token = adminToken) => emulatorKubeConfig(endpoint, token),
    kubeConfigYaml: (token = adminToken) => emulatorKubeConfigYaml(endpoint, token),
    observeRequests: (listener) => {
      context.requestObservers.add(listener);
      return () => context.requestObservers.delete(listener);
    },
    registerToken: (token, user) => authenticator.register(token, user),
    serviceAccountIssuer,
    counters,
    close: async () => {
      await new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      });
      persistence?.stop();
      await persistence?.flush();
    },
  };
}
