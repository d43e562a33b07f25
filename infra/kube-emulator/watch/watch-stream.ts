// The HTTP side of a watch: a chunked stream of newline-delimited `{"type","object"}` events, as kube-apiserver
// writes them, open until the client goes away or `timeoutSeconds` passes.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EmulatorContext } from '../emulator-context.ts';
import type { RequestInfo } from '../http/request-info.ts';
import { presentObject, requestFilter } from '../http/resource-handler.ts';
import type { ResourceType } from '../objects/resource-registry.ts';
import { KubeStatusError, badRequest, methodNotAllowed } from '../http/status.ts';
import { matchesFilter } from './watch.ts';
import type { WatchEvent } from './watch.ts';

// An absent resourceVersion or "0" starts with the current state as ADDED events; N resumes after N.
function startingPoint(url: URL): number | undefined {
  const text = url.searchParams.get('resourceVersion');
  if (!text || text === '0') return undefined;
  if (!/^\d+$/.test(text)) throw badRequest(`resourceVersion: Invalid value: "${text}": must be a number`);
  return Number(text);
}

/** Streams watch events for a request until the connection closes. */
export function serveWatch(
  context: EmulatorContext,
  type: ResourceType,
  info: RequestInfo,
  url: URL,
  request: IncomingMessage,
  response: ServerResponse,
): void {
  if (info.subresource || info.name) throw methodNotAllowed();
  const filter = requestFilter(type, info, url);
  const requested = startingPoint(url);
  response.writeHead(200, {
    'Content-Type': 'application/json',
    'Transfer-Encoding': 'chunked',
    'Cache-Control': 'no-cache, private',
  });
  response.flushHeaders();
  const write = (line: object): void => {
    response.write(`${JSON.stringify(line)}\n`);
  };
  const send = (event: WatchEvent): void =>
    write({ type: event.type, object: presentObject(type, info.version, event.object) });
  let since = requested;
  if (since === undefined) {
    for (const object of context.store.list(type, filter.namespace)) {
      if (matchesFilter(filter, object)) send({ type: 'ADDED', object });
    }
    since = context.store.resourceVersion;
  }
  let stop: () => void;
  try {
    stop = context.watches.watch(filter, since, send);
  } catch (error) {
    if (!(error instanceof KubeStatusError)) throw error;
    write({ type: 'ERROR', object: error.toStatus() });
    response.end();
    return;
  }
  const timeoutSeconds = Number(url.searchParams.get('timeoutSeconds') ?? 0);
  const timer = timeoutSeconds > 0 ? setTimeout(() => response.end(), timeoutSeconds * 1000) : undefined;
  const finish = (): void => {
    stop();
    clearTimeout(timer);
  };
  request.on('close', finish);
  response.on('close', finish);
}
