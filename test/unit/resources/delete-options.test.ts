// Issue 20, Build 2: how a delete's options are read, without a cluster. The HTTP and kubectl tests
// (test/system/kubectl/dry-run-deletes.test.ts) show them taking effect; these pin each rule of the reading.
import { describe, expect, it } from 'vitest';
import {
  deleteOptions,
  isDeleteDryRun,
  refuseOrphaning,
} from '../../../functions/resources/kubernetes/delete-options.ts';

const query = (text = '') => new URLSearchParams(text);
const KUBECTL_BODY = { kind: 'DeleteOptions', apiVersion: 'v1', dryRun: ['All'], propagationPolicy: 'Background' };

/** A 400 `Status` whose message names `named`. */
const refusedNaming = (named: string) =>
  expect.objectContaining({ status: 400, reason: 'BadRequest', message: expect.stringContaining(named) });

describe('issue 20: a delete reads its DeleteOptions from the body and the query', () => {
  it("issue 20: kubectl 1.33's body is a dry run, passed on as one DeleteOptions", () => {
    const options = deleteOptions(query(), KUBECTL_BODY);
    expect(options).toEqual(KUBECTL_BODY);
    expect(isDeleteDryRun(options)).toBe(true);
  });

  it('issue 20: a dry run in the query alone, or beside a body without one, is a dry run', () => {
    expect(isDeleteDryRun(deleteOptions(query('dryRun=All'), undefined))).toBe(true);
    expect(isDeleteDryRun(deleteOptions(query('dryRun=All'), { kind: 'DeleteOptions', apiVersion: 'v1' }))).toBe(true);
  });

  it('issue 20: no options, or an empty dryRun list, is a plain delete with a bare DeleteOptions', () => {
    for (const options of [deleteOptions(query(), undefined), deleteOptions(query(), { dryRun: [] })]) {
      expect(options).toEqual({ kind: 'DeleteOptions', apiVersion: 'v1' });
      expect(isDeleteDryRun(options)).toBe(false);
    }
  });

  it('issue 20: query options are passed on as the body would carry them', () => {
    expect(deleteOptions(query('propagationPolicy=Foreground&gracePeriodSeconds=30'), undefined)).toEqual({
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      propagationPolicy: 'Foreground',
      gracePeriodSeconds: 30,
    });
    expect(
      deleteOptions(query('propagationPolicy=Orphan'), { propagationPolicy: 'Orphan', preconditions: { uid: 'u' } }),
    ).toEqual({ kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Orphan', preconditions: { uid: 'u' } });
    expect(deleteOptions(query(), { gracePeriodSeconds: 0, apiVersion: 'meta.k8s.io/v1' }).gracePeriodSeconds).toBe(0);
  });

  it('issue 20: what cannot take effect is a 400 naming it', () => {
    const cases: [string, unknown, string][] = [
      ['dryRun=All&dryRun=Some', undefined, '"Some"'],
      ['propagationPolicy=Foreground&propagationPolicy=Orphan', undefined, 'propagationPolicy: given 2 times'],
      ['gracePeriodSeconds=1e3', undefined, 'gracePeriodSeconds'],
      ['pretty=true&limit=1', undefined, 'pretty, limit'],
      ['gracePeriodSeconds=5', { gracePeriodSeconds: 6 }, 'gracePeriodSeconds: the body says 6, the query 5'],
      ['', { dryRun: [1] }, 'dryRun'],
      ['', { propagationPolicy: 1 }, 'propagationPolicy'],
      ['', { preconditions: 'uid' }, 'preconditions'],
      ['', { preconditions: { uid: '' } }, 'preconditions.uid'],
      ['', { gracePeriodSeconds: 2 ** 53 }, 'gracePeriodSeconds'],
      ['', 'DeleteOptions', 'DeleteOptions object'],
    ];
    for (const [text, body, named] of cases) {
      expect(() => deleteOptions(query(text), body), `${text} ${JSON.stringify(body)}`).toThrow(refusedNaming(named));
    }
  });

  it('issue 20: Orphan is refused where the server deletes the dependant itself, other policies pass', () => {
    const orphan = deleteOptions(query('propagationPolicy=Orphan'), undefined);
    expect(() => refuseOrphaning(orphan, 'projects', 'namespace')).toThrow(
      refusedNaming('projects are deleted with their namespace'),
    );
    expect(() => refuseOrphaning(deleteOptions(query(), KUBECTL_BODY), 'projects', 'namespace')).not.toThrow();
  });
});
