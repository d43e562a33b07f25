import { request } from 'node:http';

export interface RawRequestOptions {
  /** For a 2xx answer whose body has not ended after this long (a stream), answer with what came and close. */
  streamWindowMs?: number;
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * One HTTP request with the path sent exactly as given, as `curl --path-as-is` does: fetch and
 * URL resolve dot segments (`.`, `%2e`) before sending, which would hide what a hostile client sends.
 */
export function rawRequest(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
  options: RawRequestOptions = {},
): Promise<RawAnswer> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        hostname,
        port,
        method,
        path,
        headers: { ...headers, ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}) },
      },
      (incoming) => {
        const chunks: Buffer[] = [];
        const answer = () => ({
          status: incoming.statusCode ?? 0,
          headers: incoming.headers,
          text: Buffer.concat(chunks).toString('utf8'),
        });
        // A successful stream (a watch, server-sent events) stays open by design: take what came so far.
        const ok = (incoming.statusCode ?? 0) < 300;
        const cut =
          options.streamWindowMs !== undefined && ok
            ? setTimeout(() => {
                resolve(answer());
                incoming.destroy();
              }, options.streamWindowMs)
            : undefined;
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () => {
          clearTimeout(cut);
          resolve(answer());
        });
        incoming.on('error', (error) => {
          clearTimeout(cut);
          reject(error);
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}
