// In-memory object storage with the semantics of the generic kube-apiserver registry: server-owned metadata,
// one global monotonically increasing resourceVersion, optimistic concurrency, finalizers, and change events.
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { kubeTimestamp } from '../objects/kube-object.ts';
import type { KubeObject } from '../objects/kube-object.ts';
import { apiVersionOf, typeKey } from '../objects/resource-registry.ts';
import type { ResourceType } from '../objects/resource-registry.ts';
import { strategyFor } from '../objects/strategies.ts';
import {
  KubeStatusError,
  alreadyExists,
  conflict,
  forbidden,
  invalid,
  notFound,
  qualifiedResource,
} from '../http/status.ts';

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** One committed change, in resourceVersion order. */
export interface StoreEvent {
  type: EventType;
  resourceType: ResourceType;
  object: KubeObject;
  /** The object before the change (for watchers whose selector it stops or starts matching). */
  previous: KubeObject | undefined;
  resourceVersion: number;
}

export type StoreListener = (event: StoreEvent) => void;

/** Every stored object by type key (`group/resource`), and the latest resourceVersion: what persists across restarts. */
export interface StoreSnapshot {
  resourceVersion: number;
  objects: Record<string, KubeObject[]>;
}

/** Delete preconditions (`DeleteOptions.preconditions`). */
export interface Preconditions {
  uid?: string;
  resourceVersion?: string;
}

const NAMESPACES = { group: '', resource: 'namespaces' };

// Suffix alphabet of generateName in k8s.io/apiserver (no vowels, no confusable characters).
const NAME_SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

function randomSuffix(): string {
  return Array.from(
    { length: 5 },
    () => NAME_SUFFIX_ALPHABET[Math.floor(Math.random() * NAME_SUFFIX_ALPHABET.length)],
  ).join('');
}

function objectKey(namespace: string | undefined, name: string): string {
  return `${namespace ?? ''}/${name}`;
}

// What metadata.generation tracks: everything but metadata, and but status where status is a subresource.
function desiredState(type: ResourceType, object: KubeObject): unknown {
  const { metadata: _metadata, status, ...rest } = object;
  return type.subresources.includes('status') ? rest : { ...rest, status };
}

/** Stores objects of every resource type and publishes each change to its listeners. */
export class ResourceStore {
  readonly #objects = new Map<string, Map<string, KubeObject>>();
  readonly #listeners: StoreListener[] = [];
  readonly #pending: StoreEvent[] = [];
  #dispatching = false;
  #resourceVersion = 0;

  /** The resourceVersion of the latest change. */
  get resourceVersion(): number {
    return this.#resourceVersion;
  }

  /** Registers a listener; events reach every listener in resourceVersion order, even when a listener writes. */
  subscribe(listener: StoreListener): () => void {
    this.#listeners.push(listener);
    return () => {
      const index = this.#listeners.indexOf(listener);
      if (index >= 0) this.#listeners.splice(index, 1);
    };
  }

  /** A copy of everything stored, to be saved and given to `restore` later. */
  snapshot(): StoreSnapshot {
    const objects: Record<string, KubeObject[]> = {};
    for (const [key, bucket] of this.#objects)
      if (bucket.size > 0) objects[key] = structuredClone([...bucket.values()]);
    return { resourceVersion: this.#resourceVersion, objects };
  }

  /**
   * Loads a snapshot into an empty store, without events: controllers that start afterwards
   * list what is there, as they would after an API server restart.
   */
  restore(snapshot: StoreSnapshot): void {
    if (this.#resourceVersion !== 0) throw new Error('restore needs an empty store');
    for (const [key, objects] of Object.entries(snapshot.objects)) {
      const [group = '', resource = ''] = key.split('/');
      const bucket = this.#bucket({ group, resource });
      for (const object of objects)
        bucket.set(objectKey(object.metadata.namespace, object.metadata.name!), structuredClone(object));
    }
    this.#resourceVersion = snapshot.resourceVersion;
  }

  /** The stored object, or undefined. */
  find(type: ResourceType, namespace: string | undefined, name: string): KubeObject | undefined {
    const object = this.#bucket(type).get(objectKey(type.namespaced ? namespace : undefined, name));
    return object && structuredClone(object);
  }

  /** The stored object; 404 when missing. */
  get(type: ResourceType, namespace: string | undefined, name: string): KubeObject {
    const object = this.find(type, namespace, name);
    if (!object) throw notFound(type, name);
    return object;
  }

  /** Objects of a type in key order, in one namespace or (undefined) all of them. */
  list(type: ResourceType, namespace?: string): KubeObject[] {
    return [...this.#bucket(type).entries()]
      .filter(([, object]) => namespace === undefined || object.metadata.namespace === namespace)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, object]) => structuredClone(object));
  }

  /**
   * Creates an object (namespace taken from its metadata), validated as written in `version`; 422, 404 for a
   * missing namespace, 409 if taken.
   */
  create(type: ResourceType, input: KubeObject, version?: string, dryRun = false): KubeObject {
    const strategy = strategyFor(type, version);
    const object = structuredClone(input);
    const metadata = object.metadata;
    for (const field of ['uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp'] as const)
      delete metadata[field];
    if (!type.namespaced) delete metadata.namespace;
    if (!metadata.name && metadata.generateName) metadata.name = metadata.generateName + randomSuffix();
    object.apiVersion = apiVersionOf(type.group, type.versions[0]!);
    object.kind = type.kind;
    metadata.uid = randomUUID();
    metadata.creationTimestamp = kubeTimestamp();
    if (type.tracksGeneration) metadata.generation = 1;
    strategy.prepareForCreate(object);
    const errors = strategy.validate(object, undefined);
    if (errors.length > 0) throw invalid(type, metadata.name ?? '', errors);
    if (type.namespaced) this.#requireActiveNamespace(metadata.namespace ?? '', type, metadata.name!);
    const key = objectKey(metadata.namespace, metadata.name!);
    if (this.#bucket(type).has(key)) throw alreadyExists(type, metadata.name!);
    return this.#commit('ADDED', type, key, object, undefined, dryRun);
  }

  /**
   * Replaces an object through `subresource` ('' for the object itself, 'status', or the internal 'finalize');
   * 409 on a stale resourceVersion. Removing the last finalizer of a deleted object removes it. Validated as
   * written in `version` (the preferred one by default).
   */
  update(type: ResourceType, input: KubeObject, subresource = '', version?: string, dryRun = false): KubeObject {
    const strategy = strategyFor(type, version);
    const name = input.metadata.name ?? '';
    const namespace = type.namespaced ? input.metadata.namespace : undefined;
    const key = objectKey(namespace, name);
    const old = this.#bucket(type).get(key);
    if (!old) throw notFound(type, name);
    const precondition = input.metadata.resourceVersion;
    if (!precondition && type.custom) {
      throw invalid(type, name, [
        {
          field: 'metadata.resourceVersion',
          type: 'FieldValueInvalid',
          value: 0,
          detail: 'must be specified for an update',
        },
      ]);
    }
    if (precondition && precondition !== old.metadata.resourceVersion) throw conflict(type, name);
    const object = structuredClone(input);
    const { uid, creationTimestamp, generation, deletionTimestamp, resourceVersion } = old.metadata;
    Object.assign(object.metadata, { name, uid, creationTimestamp, generation, deletionTimestamp, resourceVersion });
    if (namespace) object.metadata.namespace = namespace;
    else delete object.metadata.namespace;
    object.apiVersion = old.apiVersion;
    object.kind = old.kind;
    strategy.prepareForUpdate(object, old, subresource);
    for (const [field, value] of Object.entries({ generation, deletionTimestamp }))
      if (value === undefined) delete object.metadata[field];
    const errors = strategy.validate(object, old);
    if (errors.length > 0) throw invalid(type, name, errors);
    if (isDeepStrictEqual(object, old)) return structuredClone(old);
    if (type.tracksGeneration && !isDeepStrictEqual(desiredState(type, object), desiredState(type, old))) {
      object.metadata.generation = (generation ?? 0) + 1;
    }
    if (object.metadata.deletionTimestamp && strategy.pendingFinalizers(object).length === 0) {
      return this.#commit('DELETED', type, key, object, old, dryRun);
    }
    return this.#commit('MODIFIED', type, key, object, old, dryRun);
  }

  /** Deletes an object, or marks it for deletion while finalizers remain; answers its last state. */
  delete(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    preconditions: Preconditions = {},
    dryRun = false,
  ): KubeObject {
    const strategy = strategyFor(type);
    const key = objectKey(type.namespaced ? namespace : undefined, name);
    const old = this.#bucket(type).get(key);
    if (!old) throw notFound(type, name);
    if (preconditions.uid && preconditions.uid !== old.metadata.uid) {
      throw new KubeStatusError(
        409,
        'Conflict',
        `Operation cannot be fulfilled on ${qualifiedResource(type)} "${name}": Precondition failed: UID in precondition: ${preconditions.uid}, UID in object meta: ${old.metadata.uid}`,
        { name, kind: type.resource },
      );
    }
    if (preconditions.resourceVersion && preconditions.resourceVersion !== old.metadata.resourceVersion) {
      throw new KubeStatusError(
        409,
        'Conflict',
        `Operation cannot be fulfilled on ${qualifiedResource(type)} "${name}": the ResourceVersion in the precondition (${preconditions.resourceVersion}) does not match the ResourceVersion in record (${old.metadata.resourceVersion}). The object might have been modified`,
        { name, kind: type.resource },
      );
    }
    if (old.metadata.deletionTimestamp) return structuredClone(old);
    const object = structuredClone(old);
    strategy.prepareForDelete(object);
    if (strategy.pendingFinalizers(object).length === 0) return this.#commit('DELETED', type, key, object, old, dryRun);
    object.metadata.deletionTimestamp = kubeTimestamp();
    return this.#commit('MODIFIED', type, key, object, old, dryRun);
  }

  #bucket(type: Pick<ResourceType, 'group' | 'resource'>): Map<string, KubeObject> {
    const key = typeKey(type);
    let bucket = this.#objects.get(key);
    if (!bucket) {
      bucket = new Map();
      this.#objects.set(key, bucket);
    }
    return bucket;
  }

  #requireActiveNamespace(namespace: string, type: ResourceType, name: string): void {
    const stored = this.#objects.get(typeKey(NAMESPACES))?.get(objectKey(undefined, namespace));
    if (!stored) throw notFound(NAMESPACES, namespace);
    if (stored.metadata.deletionTimestamp) {
      throw forbidden(
        type,
        name,
        `unable to create new content in namespace ${namespace} because it is being terminated`,
      );
    }
  }

  // A dry run (`?dryRun=All`) answers what would be stored, having validated it, and stores nothing.
  #commit(
    eventType: EventType,
    type: ResourceType,
    key: string,
    object: KubeObject,
    previous: KubeObject | undefined,
    dryRun: boolean,
  ): KubeObject {
    if (dryRun) return structuredClone(object);
    const resourceVersion = ++this.#resourceVersion;
    object.metadata.resourceVersion = String(resourceVersion);
    if (eventType === 'DELETED') this.#bucket(type).delete(key);
    else this.#bucket(type).set(key, object);
    this.#publish({ type: eventType, resourceType: type, object: structuredClone(object), previous, resourceVersion });
    return structuredClone(object);
  }

  #publish(event: StoreEvent): void {
    this.#pending.push(event);
    if (this.#dispatching) return;
    this.#dispatching = true;
    try {
      for (let next = this.#pending.shift(); next; next = this.#pending.shift()) {
        for (const listener of [...this.#listeners]) listener(next);
      }
    } finally {
      this.#dispatching = false;
    }
  }
}
