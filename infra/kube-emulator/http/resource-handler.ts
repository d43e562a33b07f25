// The REST verbs of stored resources: get, list (selectors, pagination), create, update, patch, delete,
// deletecollection, and the status subresource.
import type { EmulatorContext } from '../emulator-context.ts';
import { fieldValidationDirective, unknownFieldWarnings } from './field-validation.ts';
import { parseJson } from './http-messages.ts';
import type { JsonReply } from './http-messages.ts';
import { isKubeObject } from '../objects/kube-object.ts';
import type { KubeObject } from '../objects/kube-object.ts';
import { parseFieldSelector, parseLabelSelector } from '../objects/label-selector.ts';
import { PatchApplyError, jsonPatch, mergePatch } from '../objects/json-patch.ts';
import { confirmRbacWrite } from '../rbac/rbac-escalation.ts';
import { applyConfiguration, parseApplyConfiguration } from '../objects/server-side-apply.ts';
import type { RequestInfo } from './request-info.ts';
import { apiVersionOf } from '../objects/resource-registry.ts';
import type { ResourceType } from '../objects/resource-registry.ts';
import { readDeleteOptions, type EmulatedDeleteOptions } from './delete-options.ts';
import { applyDefaults } from '../schema/schema-defaulting.ts';
import { pruneUnknownFields } from '../schema/schema-pruning.ts';
import {
  KubeStatusError,
  badRequest,
  methodNotAllowed,
  notFound,
  pathNotFound,
  unsupportedMediaType,
} from './status.ts';
import type { UserInfo } from '../reviews/user-info.ts';
import { matchesFilter } from '../watch/watch.ts';
import type { WatchFilter } from '../watch/watch.ts';

const JSON_PATCH = 'application/json-patch+json';
const MERGE_PATCH = 'application/merge-patch+json';
const STRATEGIC_MERGE_PATCH = 'application/strategic-merge-patch+json';
const APPLY_PATCH = 'application/apply-patch+yaml';

// The server's storage decoder defaults every custom resource it reads with the storage version's schema: an object
// stored before a default was added has it when served or patched. Answers a defaulted copy.
function withStorageDefaults(type: ResourceType, object: KubeObject): KubeObject {
  if (!type.storageSchema) return object;
  const defaulted = structuredClone(object);
  applyDefaults(defaulted, type.storageSchema);
  return defaulted;
}

/** The object as served at the requested version (custom resources are stored once for all versions), as read. */
export function presentObject(type: ResourceType, version: string, object: KubeObject): KubeObject {
  return withStorageDefaults(type, { ...object, apiVersion: apiVersionOf(type.group, version) });
}

/** The watch/list filter of a request: its namespace and its label and field selectors. */
export function requestFilter(type: ResourceType, info: RequestInfo, url: URL): WatchFilter {
  return {
    type,
    namespace: info.namespace || undefined,
    labels: parseLabelSelector(url.searchParams.get('labelSelector') ?? undefined),
    fields: parseFieldSelector(url.searchParams.get('fieldSelector') ?? undefined),
  };
}

interface ContinueToken {
  rv: number;
  start: string;
}

function itemKey(object: KubeObject): string {
  return `${object.metadata.namespace ?? ''}/${object.metadata.name}`;
}

function encodeContinue(token: ContinueToken): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', ...token })).toString('base64url');
}

// Pages continue after the last key served; objects are not versioned, so later pages show current data.
function decodeContinue(text: string): ContinueToken {
  let token: Partial<ContinueToken>;
  try {
    token = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Partial<ContinueToken>;
  } catch {
    throw badRequest('continue key is not valid: illegal base64 data');
  }
  if (typeof token.rv !== 'number' || typeof token.start !== 'string')
    throw badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  return { rv: token.rv, start: token.start };
}

function listReply(context: EmulatorContext, type: ResourceType, info: RequestInfo, url: URL): JsonReply {
  const filter = requestFilter(type, info, url);
  let items = context.store.list(type, filter.namespace).filter((object) => matchesFilter(filter, object));
  let resourceVersion = context.store.resourceVersion;
  const continueParam = url.searchParams.get('continue');
  if (continueParam) {
    const token = decodeContinue(continueParam);
    resourceVersion = token.rv;
    items = items.filter((object) => itemKey(object) > token.start);
  }
  const limit = Number(url.searchParams.get('limit') ?? 0);
  const metadata: Record<string, unknown> = { resourceVersion: String(resourceVersion) };
  if (limit > 0 && items.length > limit) {
    metadata.continue = encodeContinue({ rv: resourceVersion, start: itemKey(items[limit - 1]!) });
    metadata.remainingItemCount = items.length - limit;
    items = items.slice(0, limit);
  }
  return {
    status: 200,
    body: {
      kind: `${type.kind}List`,
      apiVersion: apiVersionOf(type.group, info.version),
      metadata,
      // Built-in list items carry no apiVersion/kind on the wire; custom resources keep theirs.
      items: items.map((object) => {
        if (type.custom) return presentObject(type, info.version, object);
        const { apiVersion: _apiVersion, kind: _kind, ...rest } = object;
        return rest;
      }),
    },
  };
}

function parseObject(body: string): KubeObject {
  const parsed = parseJson(body);
  if (!isKubeObject(parsed)) throw badRequest("Object 'Kind' is missing in the request body");
  parsed.metadata = isKubeObject(parsed.metadata) ? parsed.metadata : {};
  return parsed;
}

// The object in a write must be the one the URL names.
function placeObject(type: ResourceType, info: RequestInfo, object: KubeObject): void {
  if (type.namespaced) {
    if (object.metadata.namespace && object.metadata.namespace !== info.namespace) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    object.metadata.namespace = info.namespace;
  }
  if (info.name && object.metadata.name !== info.name) {
    throw badRequest(
      `the name of the object (${object.metadata.name ?? ''}) does not match the name on the URL (${info.name})`,
    );
  }
}

// Decoding a custom resource drops the fields its schema does not declare, then fills in the schema's defaults (so
// validation sees them); the fieldValidation directive (checked for every type) says whether a dropped field fails the
// write or warns about it. The decoder of a create or an update names the kind it failed to decode; a patch's strict
// error does not. Answers the warnings.
function decodeWrittenObject(type: ResourceType, info: RequestInfo, url: URL, object: KubeObject): string[] {
  const directive = fieldValidationDirective(url, info.verb);
  const schema = type.schemas?.[info.version];
  if (!schema) return [];
  const decodeContext =
    info.verb === 'patch' ? '' : `${type.kind} in version "${info.version}" cannot be handled as a ${type.kind}: `;
  const warnings = unknownFieldWarnings(directive, pruneUnknownFields(object, schema), decodeContext);
  applyDefaults(object, schema);
  return warnings;
}

function applyPatch(type: ResourceType, current: KubeObject, body: string, contentType: string): KubeObject {
  const accepted = type.custom
    ? [JSON_PATCH, MERGE_PATCH, APPLY_PATCH]
    : [JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH, APPLY_PATCH];
  // Strategic merge patch has no schema for custom resources; the real server refuses it, and so do we.
  // For the built-in types served here it equals a merge patch: their lists are replaced, not merged by key.
  const supported = type.custom
    ? [JSON_PATCH, MERGE_PATCH, APPLY_PATCH]
    : [JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH];
  if (!supported.includes(contentType)) throw unsupportedMediaType(accepted);
  const patch = parseJson(body);
  try {
    const patched = contentType === JSON_PATCH ? jsonPatch(current, patch) : mergePatch(current, patch);
    if (!isKubeObject(patched)) throw new PatchApplyError('the patched document is not an object');
    patched.metadata = isKubeObject(patched.metadata) ? patched.metadata : {};
    return patched;
  } catch (error) {
    if (error instanceof PatchApplyError) throw new KubeStatusError(422, 'Invalid', error.message);
    throw error;
  }
}

function deleteReply(
  context: EmulatorContext,
  type: ResourceType,
  info: RequestInfo,
  { dryRun, preconditions }: EmulatedDeleteOptions,
): JsonReply {
  const deleted = context.store.delete(type, info.namespace, info.name, preconditions, dryRun);
  const pending = !dryRun && context.store.find(type, info.namespace, info.name) !== undefined;
  if (pending || type.returnsDeletedObject || type.resource === 'namespaces') {
    return { status: pending ? 202 : 200, body: presentObject(type, info.version, deleted) };
  }
  return {
    status: 200,
    body: {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: {
        name: info.name,
        ...(type.group ? { group: type.group } : {}),
        kind: type.resource,
        uid: deleted.metadata.uid,
      },
    },
  };
}

function deleteCollectionReply(
  context: EmulatorContext,
  type: ResourceType,
  info: RequestInfo,
  url: URL,
  { dryRun, preconditions }: EmulatedDeleteOptions,
): JsonReply {
  const listed = listReply(context, type, info, url).body as { items: KubeObject[] };
  const items = listed.items.map((item) =>
    context.store.delete(type, item.metadata.namespace, item.metadata.name!, preconditions, dryRun),
  );
  return {
    status: 200,
    body: {
      kind: `${type.kind}List`,
      apiVersion: apiVersionOf(type.group, info.version),
      metadata: { resourceVersion: String(context.store.resourceVersion) },
      items,
    },
  };
}

// `dryRun=All` validates a write and stores nothing; any other value is refused as the real server's options validation does.
function isDryRun(url: URL): boolean {
  const values = url.searchParams.getAll('dryRun');
  for (const value of values)
    if (value !== 'All') throw badRequest(`dryRun: Unsupported value: "${value}": supported values: "All"`);
  return values.length > 0;
}

// Server-side apply: creates the object when there is none (a patch to a missing object is otherwise a 404).
function applyReply(
  context: EmulatorContext,
  user: UserInfo,
  type: ResourceType,
  info: RequestInfo,
  url: URL,
  body: string,
  dryRun: boolean,
): JsonReply {
  const manager = url.searchParams.get('fieldManager') ?? '';
  if (manager === '')
    throw badRequest(
      'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
    );
  const force = url.searchParams.get('force') ?? 'false';
  if (force !== 'true' && force !== 'false')
    throw badRequest(`force: Invalid value: "${force}": must be true or false`);
  const configuration = parseApplyConfiguration(body);
  placeObject(type, info, configuration);
  const existing = context.store.find(type, info.namespace, info.name);
  // A resourceVersion in the configuration is a precondition: it names an object that must exist.
  if (!existing && configuration.metadata.resourceVersion) throw notFound(type, info.name);
  const current = existing && withStorageDefaults(type, existing);
  const applied = applyConfiguration(
    current,
    configuration,
    { manager, force: force === 'true', apiVersion: apiVersionOf(type.group, info.version) },
    { group: type.group, kind: type.resource, name: info.name },
  );
  const warnings = decodeWrittenObject(type, info, url, applied);
  confirmRbacWrite(context, user, type, info, applied);
  const stored = current
    ? context.store.update(type, applied, info.subresource, info.version, dryRun)
    : context.store.create(type, applied, info.version, dryRun);
  return { status: current ? 200 : 201, body: presentObject(type, info.version, stored), warnings };
}

/** Serves one request of `user` on a stored resource type (watch excepted). */
export function handleResourceRequest(
  context: EmulatorContext,
  user: UserInfo,
  type: ResourceType,
  info: RequestInfo,
  url: URL,
  body: string,
  contentType: string,
): JsonReply {
  if (info.subresource && (info.subresource !== 'status' || !type.subresources.includes('status')))
    throw pathNotFound();
  if (type.namespaced && !info.namespace && info.verb !== 'list') throw methodNotAllowed();
  if (!type.namespaced && info.namespace && type.resource !== 'namespaces') throw pathNotFound();
  const present = (object: KubeObject): KubeObject => presentObject(type, info.version, object);
  // A delete reads its dry run from its DeleteOptions (the body's, or the query's without a body).
  const dryRun = info.verb === 'delete' || info.verb === 'deletecollection' ? false : isDryRun(url);
  /** An update and a patch end alike: the object in place, decoded and checked as written, then stored. */
  const replaceWith = (object: KubeObject): JsonReply => {
    placeObject(type, info, object);
    const warnings = decodeWrittenObject(type, info, url, object);
    confirmRbacWrite(context, user, type, info, object);
    return {
      status: 200,
      body: present(context.store.update(type, object, info.subresource, info.version, dryRun)),
      warnings,
    };
  };
  switch (info.verb) {
    case 'get':
      return { status: 200, body: present(context.store.get(type, info.namespace, info.name)) };
    case 'list':
      return listReply(context, type, info, url);
    case 'create': {
      if (info.subresource) throw methodNotAllowed();
      const object = parseObject(body);
      placeObject(type, { ...info, name: '' }, object);
      const warnings = decodeWrittenObject(type, info, url, object);
      confirmRbacWrite(context, user, type, info, object);
      return { status: 201, body: present(context.store.create(type, object, info.version, dryRun)), warnings };
    }
    case 'update':
      return replaceWith(parseObject(body));
    case 'patch': {
      if (contentType === APPLY_PATCH && type.custom && !info.subresource)
        return applyReply(context, user, type, info, url, body, dryRun);
      const current = withStorageDefaults(type, context.store.get(type, info.namespace, info.name));
      return replaceWith(applyPatch(type, current, body, contentType));
    }
    case 'delete':
      if (info.subresource) throw methodNotAllowed();
      return deleteReply(context, type, info, readDeleteOptions(url, body));
    case 'deletecollection':
      return deleteCollectionReply(context, type, info, url, readDeleteOptions(url, body));
    default:
      throw methodNotAllowed();
  }
}
