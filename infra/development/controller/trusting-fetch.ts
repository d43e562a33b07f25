import { request } from 'node:https';
import { Readable } from 'node:stream';

/**
 * A fetch (the subset the development controller uses: method, headers, a string body, a signal) that trusts
 * one certificate: the local gateway's self-signed one under LOCAL_HTTPS=true, which Node's fetch
 * refuses and which this process should not make every other connection trust.
 */
export function fetchTrusting(certificate: string): typeof fetch {
  return (input, init = {}) =>
    new Promise<Response>((resolve, reject) => {
      const outgoing = request(
        String(input),
        {
          method: init.method ?? 'GET',
          headers: Object.fromEntries(new Headers(init.headers).entries()),
          ca: certificate,
          ...(init.signal ? { signal: init.signal } : {}),
        },
        (incoming) => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(incoming.headers))
            for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value])
              headers.append(name, one);
          const status = incoming.statusCode ?? 502;
          const body = status === 204 || status === 304 ? null : (Readable.toWeb(incoming) as ReadableStream);
          resolve(new Response(body, { status, headers }));
        },
      );
      outgoing.on('error', reject);
      outgoing.end(typeof init.body === 'string' ? init.body : undefined);
    });
}
