import { request as httpRequest, type IncomingMessage } from 'node:http';
import { createInterface } from 'node:readline';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from '../logging/logger.ts';
import { apiError } from '../http/error-catalogue.ts';
import { injectTraceContext, inSpan, setResponseStatus } from '../tracing/tracing.ts';
import { kubernetesCallSpan } from './kubernetes-call-span.ts';
import { keptAliveAgent } from './kept-alive-agents.ts';

/** One call to the Kubernetes API: a path under the cluster URL, with an optional JSON body. */
export interface KubernetesCall {
  method: string;
  /** e.g. `/apis/platform.dev/v1alpha1/namespaces/a/workspaces`. */
  path: string;
  query?: URLSearchParams;
  body?: unknown;
  /** Default `application/json`; patches name their type (`application/merge-patch+json`). */
  contentType?: string;
  /** The request's deadline: aborting it abandons the call (rejected with its reason, not logged as the cluster's failure). */
  signal?: AbortSignal;
}

/** What the cluster answered: its status code and the parsed JSON body (a `Status` on failures). */
export interface KubernetesAnswer {
  status: number;
  body: unknown;
  /** Its `Warning` headers, one per warning (e.g. an unknown field under `fieldValidation=Warn`). */
  warnings?: string[];
}

const TIMEOUT_MS = 10_000;

/** Hears how long one call took, by verb. */
export type CallObserver = (verb: string, seconds: number) => void;

/**
 * The credentials the calls use: a KubeConfig, or how to get one when the first call is sent (a
 * function that connects to the cluster on first use, so that it starts without the Kubernetes client).
 */
export type KubeConfigSource = KubeConfig | (() => Promise<KubeConfig>);

/**
 * Raw REST calls to the Kubernetes API with a KubeConfig's credentials (TLS, token, client
 * certificate). Unlike the generated clients it hands back every answer, failures included, so a
 * cluster `Status` can be passed through to the caller unchanged. An unreachable cluster is a 503.
 */
export class KubernetesRestClient {
  readonly #kubeConfig: () => Promise<KubeConfig>;
  readonly #logger: Logger;
  readonly #observe: CallObserver | undefined;

  /** `observe` hears each call's verb (the HTTP method, lower case) and how long its answer took (the metrics). */
  constructor(kubeConfig: KubeConfigSource, logger: Logger, observe?: CallObserver) {
    this.#kubeConfig = typeof kubeConfig === 'function' ? kubeConfig : async () => kubeConfig;
    this.#logger = logger;
    this.#observe = observe;
  }

  /** Sends one call; resolves with any HTTP answer, throws ApiError 503 when there is none. */
  async call(call: KubernetesCall): Promise<KubernetesAnswer> {
    const kubeConfig = await this.#kubeConfig();
    const startedAt = performance.now();
    return this.#inSpan(kubeConfig, call, async () => {
      try {
        const incoming = await this.#send(kubeConfig, call, call.signal);
        const warnings = incoming.headersDistinct.warning;
        return {
          status: incoming.statusCode ?? 500,
          body: parseBody(
            await readText(incoming).catch((error: unknown) => Promise.reject(this.#failure(call, error, call.signal))),
          ),
          ...(warnings ? { warnings } : {}),
        };
      } finally {
        this.#observe?.(call.method.toLowerCase(), (performance.now() - startedAt) / 1000);
      }
    });
  }

  /**
   * Opens a watch (`?watch=true`): a 2xx answer resolves with its newline-delimited events as they
   * arrive, any other with the answer like `call`. Aborting `signal` closes the cluster's stream.
   */
  async watch(
    call: KubernetesCall,
    signal: AbortSignal,
  ): Promise<{ events: AsyncIterable<string> } | KubernetesAnswer> {
    const kubeConfig = await this.#kubeConfig();
    // The span covers opening the watch, not the events that follow for as long as it stays open.
    return this.#inSpan(kubeConfig, call, async () => {
      const incoming = await this.#send(kubeConfig, call, signal);
      const status = incoming.statusCode ?? 500;
      if (status < 200 || status > 299) return { status, body: parseBody(await readText(incoming).catch(() => '')) };
      return { events: createInterface({ input: incoming, crlfDelay: Infinity }) };
    });
  }

  /** A CLIENT span `<verb> <resource>` around a call (with tracing on), with the status the cluster answered. */
  #inSpan<T extends object>(kubeConfig: KubeConfig, call: KubernetesCall, send: () => Promise<T>): Promise<T> {
    return inSpan(
      () => kubernetesCallSpan(call, new URL(kubeConfig.getCurrentCluster()?.server ?? 'http://unknown.invalid')),
      async (span) => {
        const answer = await send();
        if (span && 'status' in answer) setResponseStatus(span, answer.status as number);
        return answer;
      },
    );
  }

  async #send(kubeConfig: KubeConfig, call: KubernetesCall, signal?: AbortSignal): Promise<IncomingMessage> {
    const server = kubeConfig.getCurrentCluster()?.server;
    if (!server) throw this.#unavailable(call, new Error('the KubeConfig names no cluster'));
    assertNoDotSegments(call.path);
    // Only the server's origin goes through URL: a path put through it would have its dot
    // segments (`.`, `%2e`) resolved, turning a request for one object into one for its collection.
    const url = new URL(server);
    const query = call.query?.toString();
    const payload = call.body === undefined ? undefined : Buffer.from(JSON.stringify(call.body));
    const options: RequestOptions = {
      protocol: url.protocol,
      hostname: url.hostname.replace(/^\[|\]$/g, ''),
      port: url.port,
      path: `${url.pathname.replace(/\/$/, '')}${call.path}${query ? `?${query}` : ''}`,
      method: call.method,
      headers: {
        accept: 'application/json',
        ...(payload
          ? { 'content-type': call.contentType ?? 'application/json', 'content-length': String(payload.length) }
          : {}),
      },
      timeout: TIMEOUT_MS,
      ...(signal ? { signal } : {}),
    };
    // The call's span (kubernetesCallSpan) is the parent the cluster's own traces join.
    injectTraceContext(options.headers as Record<string, unknown>);
    try {
      await kubeConfig.applyToHTTPSOptions(options);
    } catch (error) {
      throw this.#unavailable(call, error);
    }
    options.agent = keptAliveAgent(options.agent, url.protocol) as RequestOptions['agent'];
    return new Promise<IncomingMessage>((resolve, reject) => {
      const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
      const outgoing = send(options, (incoming) => {
        // A watch stays silent for as long as nothing changes: the timeout covers waiting for the answer only.
        outgoing.setTimeout(0);
        resolve(incoming);
      });
      outgoing.on('timeout', () => outgoing.destroy(new Error(`no answer within ${TIMEOUT_MS} ms`)));
      outgoing.on('error', (error) => reject(this.#failure(call, error, signal)));
      outgoing.end(payload);
    });
  }

  /**
   * Why a call failed: an abort is the caller's decision (a watch whose client left, a request past its
   * deadline) and its reason is rethrown as it is; anything else is a cluster that did not answer.
   */
  #failure(call: KubernetesCall, error: unknown, signal: AbortSignal | undefined): unknown {
    return signal?.aborted ? signal.reason : this.#unavailable(call, error);
  }

  #unavailable(call: KubernetesCall, error: unknown) {
    this.#logger.error('Kubernetes API did not answer', {
      method: call.method,
      path: call.path,
      detail: error instanceof Error ? error.message : String(error),
    });
    return apiError('KubernetesUnavailable', 'the Kubernetes API cannot be reached; retry shortly');
  }
}

/**
 * Paths are built from validated segments; this is the last line of defence: a segment that a
 * client or proxy would resolve as `.` or `..` never leaves the server.
 */
function assertNoDotSegments(path: string): void {
  for (const segment of path.split('/')) {
    if (/^(\.|%2e){1,2}$/i.test(segment))
      throw new Error(`refusing to send a Kubernetes path with a dot segment: ${JSON.stringify(path)}`);
  }
}

async function readText(incoming: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of incoming) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseBody(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
