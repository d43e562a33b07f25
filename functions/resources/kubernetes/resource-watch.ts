import type { ApiResponse, StreamingBody } from '../../../shared/base/http/api-request.ts';
import type { AuthorizedObjects } from '../../../shared/authz/authorized-objects.ts';
import type { KindDescription } from '../../../shared/contract/kinds/platform-kind-descriptions.ts';
import type { PlatformObject } from '../../../shared/contract/kinds/platform-object.ts';
import type { StreamSession } from '../../../shared/domain/streams/stream-sessions.ts';
import { toTable, type TableOptions } from './table-output.ts';

// Without an `exp` the stream still ends, as kube-apiserver ends every watch within its request timeout.
const LONGEST_WATCH_MS = 30 * 60_000;

export interface WatchRequest {
  /** The cluster as the request was authorized to use it: a watch of exactly the authorized collection. */
  objects: Pick<AuthorizedObjects, 'watch'>;
  description: KindDescription;
  path: string;
  /** The watch options to pass on (selectors, resourceVersion, bookmarks, timeoutSeconds). */
  query: URLSearchParams;
  /** The object as the caller may see it (sensitive values removed). */
  present: (object: PlatformObject) => PlatformObject;
  /** Events carry Tables when kubectl asked for them. */
  table: Omit<TableOptions, 'withColumns'> | undefined;
  /** The caller's credential: the stream ends when it does (expiry, disabled admin account, rotated key). Released at the end. */
  credential: StreamSession;
  /** Aborted when the caller goes away. */
  signal: AbortSignal | undefined;
}

interface WatchEvent {
  type?: string;
  object?: PlatformObject;
}

/**
 * Streams the cluster's watch to the caller as newline-delimited events, each object shown as the
 * caller may see it (as a one-row Table when asked). Ends when the cluster ends it, the caller goes
 * away, or the caller's token expires, whichever comes first; the cluster's stream is closed with it.
 */
export async function watchResponse(watch: WatchRequest): Promise<ApiResponse> {
  const stop = new AbortController();
  const events = await watch.objects.watch(watch.path, watch.query, stop.signal);
  return {
    status: 200,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store', 'x-accel-buffering': 'no' },
    body: relay(watch, events, stop),
  };
}

async function* relay(watch: WatchRequest, events: AsyncIterable<string>, stop: AbortController): StreamingBody {
  const onCallerGone = () => stop.abort();
  watch.signal?.addEventListener('abort', onCallerGone);
  watch.credential.onCredentialEnd(() => stop.abort());
  const expiry = setTimeout(() => stop.abort(), LONGEST_WATCH_MS);
  let first = true;
  try {
    for await (const line of events) {
      if (stop.signal.aborted) break;
      if (line.trim() === '') continue;
      yield `${JSON.stringify(shown(watch, JSON.parse(line) as WatchEvent, first))}\n`;
      first = false;
    }
  } catch (error) {
    // The stop (token expiry, caller gone) destroys the cluster's stream under the loop: that is the end.
    if (!stop.signal.aborted) throw error;
  } finally {
    clearTimeout(expiry);
    watch.signal?.removeEventListener('abort', onCallerGone);
    stop.abort();
    watch.credential.release();
  }
}

function shown(watch: WatchRequest, event: WatchEvent, first: boolean): WatchEvent {
  if (!event.object || !['ADDED', 'MODIFIED', 'DELETED'].includes(event.type ?? '')) return event;
  const object = watch.present(event.object);
  if (!watch.table) return { type: event.type, object };
  return {
    type: event.type,
    object: toTable(
      watch.description,
      [object],
      { resourceVersion: object.metadata.resourceVersion },
      { ...watch.table, withColumns: first },
    ) as PlatformObject,
  };
}
