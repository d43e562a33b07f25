/** A platform object as it travels: TypeMeta, ObjectMeta and free-form spec and status. */
export interface PlatformObject {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    labels?: Record<string, string>;
    ownerReferences?: OwnerReference[];
    [field: string]: unknown;
  };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
  [field: string]: unknown;
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** Whether a value is a JSON object (not an array, not null). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An owner reference to `owner`, so the cluster's garbage collector removes what it owns with it. */
export function ownerReferenceTo(owner: PlatformObject): OwnerReference {
  return {
    apiVersion: owner.apiVersion!,
    kind: owner.kind!,
    name: owner.metadata.name!,
    uid: owner.metadata.uid!,
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** Whether `object` is owned by the object with uid `ownerUid`. */
export function isOwnedBy(object: PlatformObject, ownerUid: string | undefined): boolean {
  return (
    ownerUid !== undefined && (object.metadata.ownerReferences ?? []).some((reference) => reference.uid === ownerUid)
  );
}
