// Watch fan-out: keeps the recent change history so a watch can resume from a resourceVersion, and translates
// changes through a watcher's selectors the way the watch cache does (an object that starts matching is ADDED,
// one that stops matching is DELETED).
import type { KubeObject } from '../objects/kube-object.ts';
import { matchesFields, matchesLabels } from '../objects/label-selector.ts';
import type { FieldSelector, LabelSelector } from '../objects/label-selector.ts';
import { typeKey } from '../objects/resource-registry.ts';
import type { ResourceType } from '../objects/resource-registry.ts';
import type { EventType, ResourceStore, StoreEvent } from '../storage/resource-store.ts';
import { expired } from '../http/status.ts';

/** What one watch is interested in. */
export interface WatchFilter {
  type: ResourceType;
  /** Undefined watches every namespace. */
  namespace: string | undefined;
  labels: LabelSelector;
  fields: FieldSelector;
}

/** One event as sent on the wire. */
export interface WatchEvent {
  type: EventType;
  object: KubeObject;
}

/** Whether an object belongs to what the filter watches. */
export function matchesFilter(filter: WatchFilter, object: KubeObject): boolean {
  return (
    (filter.namespace === undefined || object.metadata.namespace === filter.namespace) &&
    matchesLabels(filter.labels, object.metadata.labels) &&
    matchesFields(filter.fields, object.metadata)
  );
}

function translate(filter: WatchFilter, event: StoreEvent): WatchEvent | undefined {
  if (typeKey(event.resourceType) !== typeKey(filter.type)) return undefined;
  const matchesNow = matchesFilter(filter, event.object);
  const matchedBefore = event.previous !== undefined && matchesFilter(filter, event.previous);
  if (event.type === 'ADDED') return matchesNow ? { type: 'ADDED', object: event.object } : undefined;
  if (event.type === 'DELETED')
    return matchedBefore || matchesNow ? { type: 'DELETED', object: event.object } : undefined;
  if (matchesNow) return { type: matchedBefore ? 'MODIFIED' : 'ADDED', object: event.object };
  return matchedBefore ? { type: 'DELETED', object: event.object } : undefined;
}

/** Follows the store and serves watches, replaying retained history after a given resourceVersion. */
export class WatchHub {
  readonly #history: StoreEvent[] = [];
  readonly #historyLimit: number;
  readonly #watchers = new Set<(event: StoreEvent) => void>();
  #truncatedBefore = 0;

  constructor(store: ResourceStore, historyLimit = 10_000) {
    this.#historyLimit = historyLimit;
    store.subscribe((event) => {
      this.#history.push(event);
      if (this.#history.length > this.#historyLimit) this.#truncatedBefore = this.#history.shift()!.resourceVersion;
      for (const watcher of this.#watchers) watcher(event);
    });
  }

  /**
   * Sends every matching change after resourceVersion `since`, then follows new ones until the returned stop
   * function is called; 410 Expired when `since` is older than the retained history.
   */
  watch(filter: WatchFilter, since: number, send: (event: WatchEvent) => void): () => void {
    if (since < this.#truncatedBefore) throw expired(`too old resource version: ${since} (${this.#truncatedBefore})`);
    const deliver = (event: StoreEvent): void => {
      const translated = translate(filter, event);
      if (translated) send(translated);
    };
    for (const event of this.#history) if (event.resourceVersion > since) deliver(event);
    this.#watchers.add(deliver);
    return () => this.#watchers.delete(deliver);
  }
}
