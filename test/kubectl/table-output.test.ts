// Issue 13, Table output: the cells kubectl prints, computed as kube-apiserver computes them for custom resources.
import { describe, expect, it } from 'vitest';
import { humanDuration, includeObjectOption, requestedTableVersion } from '../../functions/resources/table-output.ts';

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
  });

  it('refuses an includeObject it does not know with a 400 Status', () => {
    expect(includeObjectOption(new URLSearchParams())).toBe('Metadata');
    expect(() => includeObjectOption(new URLSearchParams('includeObject=Everything'))).toThrow(/Unsupported value/);
  });
});
