import { apiError } from '../../../shared/base/http/error-catalogue.ts';
import type { KindDescription, PrinterColumn } from '../../../shared/contract/kinds/platform-kind-descriptions.ts';
import type { PlatformObject } from '../../../shared/contract/kinds/platform-object.ts';

// `kubectl get` asks for `application/json;as=Table;v=v1;g=meta.k8s.io`: rows of printed cells, with columns
// from the CRD's additionalPrinterColumns, as kube-apiserver renders custom resources.

/** The Table version an Accept header asks for (`v1` or `v1beta1`), or undefined for plain JSON. */
export function requestedTableVersion(accept: string): 'v1' | 'v1beta1' | undefined {
  for (const mediaType of accept.split(',')) {
    const parameters = new Map(
      mediaType
        .split(';')
        .slice(1)
        .map((parameter) => parameter.trim().split('=') as [string, string]),
    );
    const version = parameters.get('v');
    if (
      parameters.get('as') === 'Table' &&
      parameters.get('g') === 'meta.k8s.io' &&
      (version === 'v1' || version === 'v1beta1')
    )
      return version;
  }
  return undefined;
}

// What the resource routes answer in: JSON, as an object or list, or as a Table (`requestedTableVersion`).
const ANSWERED_MEDIA_RANGES = new Set(['application/json', 'application/*', '*/*']);
const ANSWERED_TYPES = 'application/json, application/json;as=Table;v=v1;g=meta.k8s.io';

/**
 * Refuses an `Accept` none of whose media types the server answers in (406 `NotAcceptable`, as
 * kube-apiserver answers): `Accept: application/yaml`, protobuf or a Table version it does not
 * make was answered in JSON as if asked for. An absent or empty `Accept` takes anything.
 */
export function requireAnswerableAccept(accept: string | undefined): void {
  if (accept === undefined || accept.trim() === '') return;
  const answerable = accept.split(',').some((entry) => {
    const [range = '', ...parameterTexts] = entry.split(';').map((part) => part.trim());
    const parameters = new Map(parameterTexts.map((parameter) => parameter.split('=') as [string, string]));
    if (!ANSWERED_MEDIA_RANGES.has(range.toLowerCase()) || Number(parameters.get('q') ?? 1) === 0) return false;
    const as = parameters.get('as');
    return as === undefined || requestedTableVersion(entry) !== undefined;
  });
  if (!answerable)
    throw apiError(
      'NotAcceptable',
      `the server cannot answer in any media type the Accept header names; it answers in: ${ANSWERED_TYPES}`,
    );
}

type IncludeObject = 'None' | 'Metadata' | 'Object';

/** `?includeObject=`: what each row carries besides its cells (Metadata by default). */
export function includeObjectOption(query: URLSearchParams): IncludeObject {
  const value = query.get('includeObject') ?? 'Metadata';
  if (value !== 'None' && value !== 'Metadata' && value !== 'Object') {
    throw apiError(
      'BadRequest',
      `includeObject: Unsupported value: "${value}": supported values: "None", "Metadata", "Object"`,
    );
  }
  return value;
}

export interface TableOptions {
  version: 'v1' | 'v1beta1';
  includeObject: IncludeObject;
  /** Watch events after the first carry no column definitions, as kube-apiserver sends them. */
  withColumns?: boolean;
}

const NAME_COLUMN: PrinterColumn = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description: 'Name must be unique within a namespace.',
  jsonPath: '.metadata.name',
};
const AGE_COLUMN: PrinterColumn = {
  name: 'Age',
  type: 'date',
  jsonPath: '.metadata.creationTimestamp',
  description: 'CreationTimestamp is the time the object was created.',
};

function columnsOf(description: KindDescription): PrinterColumn[] {
  return [NAME_COLUMN, ...(description.printerColumns.length > 0 ? description.printerColumns : [AGE_COLUMN])];
}

/** A Table of objects; `listMetadata` is the list's (resourceVersion, continue, remainingItemCount). */
export function toTable(
  description: KindDescription,
  objects: PlatformObject[],
  listMetadata: Record<string, unknown>,
  options: TableOptions,
): Record<string, unknown> {
  const columns = columnsOf(description);
  const now = Date.now();
  return {
    kind: 'Table',
    apiVersion: `meta.k8s.io/${options.version}`,
    metadata: listMetadata,
    ...(options.withColumns === false
      ? {}
      : {
          columnDefinitions: columns.map((column) => ({
            name: column.name,
            type: column.type,
            format: column.format ?? '',
            description: column.description ?? '',
            priority: column.priority ?? 0,
          })),
        }),
    rows: objects.map((object) => ({
      cells: columns.map((column) => cell(column, object, now)),
      ...(options.includeObject === 'None'
        ? {}
        : { object: options.includeObject === 'Object' ? object : partialObjectMetadata(object, options.version) }),
    })),
  };
}

function partialObjectMetadata(object: PlatformObject, version: string): Record<string, unknown> {
  return { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${version}`, metadata: object.metadata };
}

function cell(column: PrinterColumn, object: PlatformObject, now: number): unknown {
  const value = valueAtJsonPath(object, column.jsonPath);
  if (value === undefined || value === null) return null;
  if (column.type === 'date' && typeof value === 'string') {
    const time = Date.parse(value);
    return Number.isNaN(time) ? value : humanDuration(now - time);
  }
  if (column.type === 'integer' || column.type === 'number' || column.type === 'boolean') return value;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

// The CRDs' column paths are simple field paths (`.spec.source.repository`).
function valueAtJsonPath(object: unknown, jsonPath: string): unknown {
  let node = object;
  for (const field of jsonPath
    .replace(/^\{?\.?/, '')
    .replace(/\}$/, '')
    .split('.')) {
    if (field === '') continue;
    node =
      typeof node === 'object' && node !== null && !Array.isArray(node)
        ? (node as Record<string, unknown>)[field]
        : undefined;
  }
  return node;
}

/** Elapsed time as Kubernetes prints ages (apimachinery's HumanDuration): `45s`, `3m12s`, `14m`, `5h3m`, `20h`, `3d4h`, `40d`, `2y10d`, `9y`. */
export function humanDuration(milliseconds: number): string {
  const seconds = Math.max(0, Math.floor(milliseconds / 1000));
  const minutes = Math.floor(seconds / 60);
  const hours = Math.floor(minutes / 60);
  const days = Math.floor(hours / 24);
  const withPart = (whole: string, part: number, unit: string) => (part === 0 ? whole : `${whole}${part}${unit}`);
  if (seconds < 120) return `${seconds}s`;
  if (minutes < 10) return withPart(`${minutes}m`, seconds % 60, 's');
  if (hours < 3) return `${minutes}m`;
  if (hours < 8) return withPart(`${hours}h`, minutes % 60, 'm');
  if (hours < 48) return `${hours}h`;
  if (days < 8) return withPart(`${days}d`, hours % 24, 'h');
  if (days < 365 * 2) return `${days}d`;
  if (days < 365 * 8) return withPart(`${Math.floor(days / 365)}y`, days % 365, 'd');
  return `${Math.floor(days / 365)}y`;
}
