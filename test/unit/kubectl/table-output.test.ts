// Issue 13, Table output: the cells kubectl prints, computed as kube-apiserver computes them for custom resources.
import { describe, expect, it } from 'vitest';
import {
  humanDuration,
  includeObjectOption,
  requestedTableVersion,
  toTable,
} from '../../../functions/resources/kubernetes/table-output.ts';
import type { KindDescription, PrinterColumn } from '../../../shared/contract/kinds/platform-kind-descriptions.ts';
import type { PlatformObject } from '../../../shared/contract/kinds/platform-object.ts';
import { WORKSPACE } from '../../../shared/contract/kinds/platform-kinds.ts';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

describe('Age cells read as Kubernetes prints durations (HumanDuration)', () => {
  it.each([
    [0, '0s'],
    [119 * SECOND, '119s'],
    [2 * MINUTE, '2m'],
    [3 * MINUTE + 12 * SECOND, '3m12s'],
    [14 * MINUTE + 59 * SECOND, '14m'],
    [3 * HOUR, '3h'],
    [5 * HOUR + 3 * MINUTE, '5h3m'],
    [20 * HOUR, '20h'],
    [3 * DAY + 4 * HOUR, '3d4h'],
    [40 * DAY, '40d'],
    [2 * 365 * DAY + 10 * DAY, '2y10d'],
    [9 * 365 * DAY + 10 * DAY, '9y'],
    // Each boundary of HumanDuration, and a creation time in the future (a skewed clock).
    [-5 * SECOND, '0s'],
    [2 * HOUR + 59 * MINUTE, '179m'],
    [47 * HOUR + 59 * MINUTE, '47h'],
    [48 * HOUR, '2d'],
    [7 * DAY + 23 * HOUR, '7d23h'],
    [729 * DAY, '729d'],
    [730 * DAY, '2y'],
    [8 * 365 * DAY - DAY, '7y364d'],
  ])('%d ms is %s', (elapsed, printed) => {
    expect(humanDuration(elapsed)).toBe(printed);
  });
});

describe('A Table is answered only when the Accept header asks for one kubectl understands', () => {
  it("finds the Table version among kubectl's media types and ignores others", () => {
    expect(requestedTableVersion('application/json;as=Table;v=v1;g=meta.k8s.io,application/json')).toBe('v1');
    expect(requestedTableVersion('application/json;as=Table;v=v1beta1;g=meta.k8s.io')).toBe('v1beta1');
    expect(requestedTableVersion('application/json')).toBeUndefined();
    expect(requestedTableVersion('application/json;as=Table;v=v2;g=meta.k8s.io')).toBeUndefined();
    expect(requestedTableVersion('application/json;as=Table;v=v1;g=other.io')).toBeUndefined();
    expect(requestedTableVersion('application/json;as=List;v=v1;g=meta.k8s.io')).toBeUndefined();
    expect(requestedTableVersion('application/json;v=v1;g=meta.k8s.io')).toBeUndefined();
  });

  it('refuses an includeObject it does not know with a 400 Status', () => {
    expect(includeObjectOption(new URLSearchParams())).toBe('Metadata');
    expect(() => includeObjectOption(new URLSearchParams('includeObject=Everything'))).toThrow(/Unsupported value/);
  });
});

describe('A Table of objects: the columns of the CRD (Name first), one row of cells per object, each with what includeObject asks', () => {
  const columns: PrinterColumn[] = [
    { name: 'Repository', type: 'string', jsonPath: '.spec.source.repository', description: 'Where', priority: 1 },
    { name: 'Ready', type: 'boolean', jsonPath: '{.status.ready}', format: 'flag' },
    { name: 'Count', type: 'integer', jsonPath: '.status.count' },
    { name: 'Labels', type: 'string', jsonPath: '.metadata.labels' },
    { name: 'Started', type: 'date', jsonPath: '.status.started' },
    { name: 'Item', type: 'string', jsonPath: '.spec.list.first' },
    { name: 'Ratio', type: 'number', jsonPath: '.status.ratio' },
    { name: 'Below null', type: 'string', jsonPath: '.status.none.deeper' },
  ];
  const described = (printerColumns: PrinterColumn[]) => ({ kind: WORKSPACE, printerColumns }) as KindDescription;
  const object: PlatformObject = {
    apiVersion: 'platform.dev/v1alpha1',
    kind: 'Workspace',
    metadata: { name: 'web', namespace: 'team-a', labels: { tier: 'one' }, creationTimestamp: 'not a date' },
    spec: { source: { repository: 'https://git.example.com/x.git' }, list: ['first'] },
    status: { ready: false, count: 0, started: 'yesterday', ratio: 0.5, none: null },
  } as PlatformObject;

  it('writes out every column definition, with an empty format and priority 0 where the CRD gives none', () => {
    const table = toTable(
      described(columns),
      [object],
      { resourceVersion: '7' },
      { version: 'v1', includeObject: 'None' },
    );
    expect(table).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: { resourceVersion: '7' } });
    expect(table.columnDefinitions).toEqual([
      {
        name: 'Name',
        type: 'string',
        format: 'name',
        description: 'Name must be unique within a namespace.',
        priority: 0,
      },
      { name: 'Repository', type: 'string', format: '', description: 'Where', priority: 1 },
      { name: 'Ready', type: 'boolean', format: 'flag', description: '', priority: 0 },
      { name: 'Count', type: 'integer', format: '', description: '', priority: 0 },
      { name: 'Labels', type: 'string', format: '', description: '', priority: 0 },
      { name: 'Started', type: 'date', format: '', description: '', priority: 0 },
      { name: 'Item', type: 'string', format: '', description: '', priority: 0 },
      { name: 'Ratio', type: 'number', format: '', description: '', priority: 0 },
      { name: 'Below null', type: 'string', format: '', description: '', priority: 0 },
    ]);
  });

  it('prints each cell as kube-apiserver does: strings as they are, false and 0 kept, objects as JSON, absent (or inside a list, or below null) as null, a number as it is, a date it cannot read as it is', () => {
    const table = toTable(described(columns), [object], {}, { version: 'v1', includeObject: 'None' });
    expect(table.rows).toEqual([
      { cells: ['web', 'https://git.example.com/x.git', false, 0, '{"tier":"one"}', 'yesterday', null, 0.5, null] },
    ]);
  });

  it('without printer columns, Name and Age (from creationTimestamp)', () => {
    const created = {
      ...object,
      metadata: { ...object.metadata, creationTimestamp: new Date(Date.now() - 3 * MINUTE).toISOString() },
    };
    const table = toTable(described([]), [created], {}, { version: 'v1', includeObject: 'None' });
    expect((table.columnDefinitions as Array<{ name: string }>).map((column) => column.name)).toEqual(['Name', 'Age']);
    expect(table.rows).toEqual([{ cells: ['web', expect.stringMatching(/^3m\ds$|^3m$/)] }]);
  });

  it('rows carry PartialObjectMetadata of the version asked (Metadata), the object itself (Object), or nothing (None)', () => {
    const rowObject = (includeObject: 'None' | 'Metadata' | 'Object', version: 'v1' | 'v1beta1' = 'v1') =>
      (toTable(described(columns), [object], {}, { version, includeObject }).rows as Array<{ object?: unknown }>)[0]!;
    expect(rowObject('Metadata', 'v1beta1').object).toEqual({
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.k8s.io/v1beta1',
      metadata: object.metadata,
    });
    expect(rowObject('Object').object).toBe(object);
    expect(rowObject('None')).not.toHaveProperty('object');
  });

  it('a watch event after the first carries no column definitions', () => {
    const options = { version: 'v1beta1', includeObject: 'None', withColumns: false } as const;
    const table = toTable(described(columns), [object], {}, options);
    expect(table).not.toHaveProperty('columnDefinitions');
    expect(table.apiVersion).toBe('meta.k8s.io/v1beta1');
    expect(toTable(described(columns), [object], {}, { ...options, withColumns: true })).toHaveProperty(
      'columnDefinitions',
    );
  });
});
