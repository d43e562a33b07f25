// The one connection every command shares (kubectl's genericclioptions): the kubeconfig's current
// context, the namespace (the Project), and requests to the server with the context's credentials
// as @kubernetes/client-node applies them (CA, client certificate, token, exec plugin, proxy).
// `platform-api kubeconfig`, which writes the first context, talks to a server named on its command
// line instead (PlatformConnection.toServer): the same client, without a kubeconfig.
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';
import { loadKubeconfig, type KubeconfigSelection } from './kubeconfig-files.ts';
import { connectionError, serverError } from './server-errors.ts';

export interface ConnectionOptions extends KubeconfigSelection {
  /** -n/--namespace: the Project; else the context's namespace, else `default` (as kubectl). */
  namespace?: string;
}

/** A server named on the command line, before any kubeconfig exists (`platform-api kubeconfig`'s flags). */
export interface ServerAddress {
  /** The server's URL. */
  server: string;
  /** --certificate-authority: the PEM file of the CA that signed the server's certificate. */
  certificateAuthority?: string;
  /** --insecure-skip-tls-verify. */
  insecureSkipTlsVerify?: boolean;
}

/** An answer read whole: its status, headers and parsed JSON body (undefined when empty or not JSON). */
export interface JsonAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: unknown;
}

export class PlatformConnection {
  readonly #options: ConnectionOptions;
  /** Loads the configuration again (renewCredentials): the kubeconfig, or the server's address. */
  readonly #load: () => KubeConfig;
  #config: KubeConfig;
  /** The Authorization header of the last request opened, to tell a renewed credential from the same one. */
  #lastAuthorization: string | undefined;

  constructor(options: ConnectionOptions, load: () => KubeConfig = () => loadKubeconfig(options)) {
    this.#options = options;
    this.#load = load;
    this.#config = load();
  }

  /** A connection to `address` with no credential of its own: each request carries the one it needs. */
  static toServer(address: ServerAddress): PlatformConnection {
    return new PlatformConnection({}, () => kubeConfigOfServer(address));
  }

  /** The Project commands act in. */
  get namespace(): string {
    return (
      this.#options.namespace ?? this.#config.getContextObject(this.#config.getCurrentContext())?.namespace ?? 'default'
    );
  }

  /** The server's URL, as the context's cluster names it. */
  get server(): string {
    return this.#config.getCurrentCluster()!.server.replace(/\/+$/, '');
  }

  /** Sends a request and reads the whole answer; a non-2xx answer throws kubectl's error line. */
  async call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<JsonAnswer> {
    const answer = await this.send(method, path, body, headers);
    if (answer.status < 200 || answer.status > 299) throw serverError(answer.status, answer.body);
    return answer;
  }

  /** Sends a request and reads the whole answer, whatever its status. */
  async send(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<JsonAnswer> {
    const text = body === undefined ? undefined : JSON.stringify(body);
    const response = await this.open(
      method,
      path,
      {
        accept: 'application/json',
        ...(text !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      text,
    );
    return { status: response.statusCode ?? 0, headers: response.headers, body: await readAnswer(response) };
  }

  /** Opens a request and resolves with the response as it starts (a stream: the caller reads or destroys it). */
  async open(method: string, path: string, headers: Record<string, string>, body?: string): Promise<IncomingMessage> {
    const url = new URL(`${this.server}${path}`);
    const options: RequestOptions = { method, headers: { ...headers } };
    try {
      await this.#config.applyToHTTPSOptions(options);
    } catch (error) {
      // client-node's exec runner rejects with the plugin's standard error (or a spawn error).
      throw connectionError(new Error(`getting credentials: ${(error as Error).message.trim()}`), url);
    }
    this.#lastAuthorization = authorizationOf(options);
    const send = url.protocol === 'http:' ? httpRequest : httpsRequest;
    return new Promise((resolve, reject) => {
      const outgoing = send(url, options, resolve);
      outgoing.on('error', (error) => reject(connectionError(error, url)));
      outgoing.end(body);
    });
  }

  /**
   * Loads the kubeconfig again, which runs an exec credential plugin anew (kubectl refreshes the same
   * way when a credential is refused): resolves whether the credential changed, i.e. whether trying
   * again can help.
   */
  async renewCredentials(): Promise<boolean> {
    this.#config = this.#load();
    const options: RequestOptions = { headers: {} };
    await this.#config.applyToHTTPSOptions(options).catch(() => undefined);
    return authorizationOf(options) !== this.#lastAuthorization;
  }
}

/** A one-context KubeConfig for `address`, so that its CA and TLS choice apply as a kubeconfig's would. */
function kubeConfigOfServer(address: ServerAddress): KubeConfig {
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [
      {
        name: 'server',
        server: address.server,
        // client-node refuses an http:// server unless TLS checks are off, which mean nothing without TLS;
        // `platform-api kubeconfig` warns that kubectl will not send tokens there.
        skipTLSVerify: address.insecureSkipTlsVerify === true || new URL(address.server).protocol === 'http:',
        ...(address.certificateAuthority ? { caFile: address.certificateAuthority } : {}),
      },
    ],
    // client-node applies a cluster's TLS settings only when the context has a user.
    users: [{ name: 'none' }],
    contexts: [{ name: 'server', cluster: 'server', user: 'none' }],
    currentContext: 'server',
  });
  return config;
}

function authorizationOf(options: RequestOptions): string | undefined {
  const headers = (options.headers ?? {}) as Record<string, string | undefined>;
  return headers.Authorization ?? headers.authorization;
}

/** Reads a whole answer's body: its JSON, undefined when empty, `{message}` with the text when it is not JSON. */
export async function readAnswer(response: IncomingMessage): Promise<unknown> {
  let received = '';
  response.setEncoding('utf8');
  for await (const chunk of response) received += chunk;
  return received === '' ? undefined : parseAnswer(received);
}

/** JSON text parsed, or `{message}` with the text when it is not JSON (a proxy's error page). */
export function parseAnswer(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { message: text.trim() };
  }
}
