import { lookup as resolveName, type LookupAddress, type LookupOptions } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { OutboundAddressPolicy } from './outbound-address-policy.ts';

/** One HTTP request the engine sends: always a POST of `body`. The URL may hold a secret (a chat webhook's path). */
export interface OutboundRequest {
  url: string;
  headers: Readonly<Record<string, string>>;
  body: string;
  /**
   * The values the request carries from Secrets (header values, a URL from a Secret): the engine takes
   * them out of what it keeps of an answer and an error, since a receiver may echo the request back.
   */
  secrets?: readonly string[];
}

/** What came of one attempt. `statusCode` is absent when no answer came; `error` says why it is not a success. */
export interface OutboundAnswer {
  statusCode?: number;
  latencyMs: number;
  error?: string;
  /** The answer's body as far as it was read (OUTBOUND_MAX_ANSWER_BYTES at most). */
  body: Buffer;
}

/** The limits of one call (OutboundSettings). */
export interface OutboundCallLimits {
  timeoutMs: number;
  maxAnswerBytes: number;
}

/**
 * Sends outbound requests safely (issue 47, item 5): the host's addresses are checked after DNS
 * resolution and the connection goes to the address checked (the check is the socket's own `lookup`,
 * with no keep-alive agent, so nothing resolves twice and a rebinding name gains nothing); a redirect is
 * an answer, never followed; the whole attempt, answer included, has a deadline; at most
 * `maxAnswerBytes` of the answer are read. Errors name the host, never the URL (its path may be a secret).
 */
export class OutboundCaller {
  readonly #policy: OutboundAddressPolicy;
  readonly #limits: OutboundCallLimits;

  constructor(policy: OutboundAddressPolicy, limits: OutboundCallLimits) {
    this.#policy = policy;
    this.#limits = limits;
  }

  /** Sends `request`; never throws: a failure is an answer with `error`. */
  async send(request: OutboundRequest): Promise<OutboundAnswer> {
    const started = performance.now();
    const latencyMs = () => Math.round(performance.now() - started);
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return { latencyMs: latencyMs(), error: 'the receiver URL is not an absolute URL', body: Buffer.alloc(0) };
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      return {
        latencyMs: latencyMs(),
        error: `the receiver URL's scheme ${url.protocol} is not http or https`,
        body: Buffer.alloc(0),
      };
    // An IP literal is never looked up, so it is checked here; a name is checked by `lookup`.
    const literal = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const refused = isIpLiteral(literal) ? this.#refusalMessage(literal) : undefined;
    if (refused) return { latencyMs: latencyMs(), error: refused, body: Buffer.alloc(0) };
    try {
      const answer = await this.#post(url, request);
      const redirect = answer.statusCode >= 300 && answer.statusCode < 400;
      const success = answer.statusCode >= 200 && answer.statusCode < 300;
      return {
        statusCode: answer.statusCode,
        latencyMs: latencyMs(),
        body: answer.body,
        ...(redirect ? { error: `redirect to another address not followed (status ${answer.statusCode})` } : {}),
        ...(!success && !redirect ? { error: `the receiver answered ${answer.statusCode}` } : {}),
      };
    } catch (error) {
      return { latencyMs: latencyMs(), error: this.#describe(error, url), body: Buffer.alloc(0) };
    }
  }

  #post(url: URL, request: OutboundRequest): Promise<{ statusCode: number; body: Buffer }> {
    const client = url.protocol === 'https:' ? https : http;
    const signal = AbortSignal.timeout(this.#limits.timeoutMs);
    return new Promise((resolve, reject) => {
      const outgoing = client.request(url, {
        method: 'POST',
        headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
        // A socket of its own for each attempt: a kept-alive one would skip the address check.
        agent: false,
        lookup: this.#checkedLookup,
        signal,
      });
      outgoing.on('error', reject);
      outgoing.on('response', (answer) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const done = () => {
          answer.destroy();
          resolve({
            statusCode: answer.statusCode ?? 0,
            body: Buffer.concat(chunks).subarray(0, this.#limits.maxAnswerBytes),
          });
        };
        answer.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          size += chunk.length;
          // Enough is read: the rest is neither waited for nor kept.
          if (size >= this.#limits.maxAnswerBytes) done();
        });
        answer.on('end', done);
        answer.on('error', reject);
      });
      outgoing.end(request.body);
    });
  }

  /** The socket's lookup: resolves every address of the name and refuses the name when any of them is refused. */
  readonly #checkedLookup: LookupFunction = (hostname, options, callback) => {
    const resolveOptions: LookupOptions = { all: true, family: (options as LookupOptions).family ?? 0 };
    resolveName(hostname, { ...resolveOptions, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const refused = addresses.map((entry) => this.#refusalMessage(entry.address, hostname)).find(Boolean);
      if (refused) return callback(Object.assign(new Error(refused), { code: 'EOUTBOUNDREFUSED' }), '', 0);
      if ((options as LookupOptions).all)
        return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0]!;
      return callback(null, first.address, first.family);
    });
  };

  #refusalMessage(address: string, hostname?: string): string | undefined {
    const refusal = this.#policy.refusal(address);
    if (!refusal) return undefined;
    const name = hostname ? `${hostname} resolves to ` : '';
    return `refused: ${name}${refusal.address}, a ${refusal.range} address (OUTBOUND_ALLOWED_CIDRS may allow its range)`;
  }

  #describe(error: unknown, url: URL): string {
    const failure = error as { name?: string; code?: string; message?: string };
    if (failure.code === 'EOUTBOUNDREFUSED') return failure.message ?? 'refused';
    if (failure.name === 'TimeoutError' || failure.name === 'AbortError' || failure.code === 'ABORT_ERR')
      return `no answer from ${url.host} within ${this.#limits.timeoutMs} ms (OUTBOUND_TIMEOUT)`;
    return `${url.host}: ${failure.code ?? failure.message ?? String(error)}`;
  }
}

function isIpLiteral(host: string): boolean {
  return /^[\d.]+$/.test(host) || host.includes(':');
}
