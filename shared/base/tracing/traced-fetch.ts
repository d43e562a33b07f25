import { inSpan, setResponseStatus, SpanKind } from './tracing.ts';

/**
 * `fetch` in a CLIENT span named `name` (with tracing on): the method, the server's address and
 * the answer's status, never the URL's path or query (a key set's URL is harmless; a habit is not).
 */
export function tracedFetch(name: string): (url: string | URL, init?: RequestInit) => Promise<Response> {
  return (url, init) =>
    inSpan(
      () => {
        const target = new URL(url);
        return {
          name,
          kind: SpanKind.CLIENT,
          attributes: {
            'http.request.method': init?.method ?? 'GET',
            'server.address': target.hostname.replace(/^\[|\]$/g, ''),
            'server.port': Number(target.port) || (target.protocol === 'https:' ? 443 : 80),
          },
        };
      },
      async (span) => {
        const response = await fetch(url, init);
        if (span) setResponseStatus(span, response.status);
        return response;
      },
    );
}
