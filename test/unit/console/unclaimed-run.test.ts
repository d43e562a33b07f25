// Issue 44, item 3: "The plugin and the console say when a run has waited unclaimed for long ('no
// controller has claimed this run for 30 s')". The rule, from the run's created time, phase and
// attempts: one browser-safe rule (shared/contract/rules/unclaimed-run.ts) that the plugin and the console both import.
import { describe, expect, it } from 'vitest';
import type { Run } from '../../../shared/domain/runs/run.ts';
import { unclaimedNotice, unclaimedNoticeDueAt } from '../../../shared/contract/rules/unclaimed-run.ts';

const CREATED = '2026-12-07T02:00:00.000Z';
const at = (seconds: number) => Date.parse(CREATED) + seconds * 1000;
const run = (phase: Run['phase'], attempts: number) => ({ phase, attempts, createdAt: CREATED });

const CASES: Array<[string, ReturnType<typeof run>, number, string | undefined]> = [
  ['Pending, never claimed, 29.9 s', run('Pending', 0), 29.9, undefined],
  ['Pending, never claimed, 30 s', run('Pending', 0), 30, 'no controller has claimed this run for 30 s'],
  ['Pending, never claimed, 95.5 s', run('Pending', 0), 95.5, 'no controller has claimed this run for 95 s'],
  ['Pending again after a lapsed lease (claimed once)', run('Pending', 1), 300, undefined],
  ['Running', run('Running', 1), 300, undefined],
  ['Succeeded', run('Succeeded', 1), 300, undefined],
  ['Cancelled before any claim', run('Cancelled', 0), 300, undefined],
];

describe('Issue 44, item 3: a run that waited unclaimed for 30 s says so', () => {
  it.each(CASES)('%s', (_name, record, seconds, expected) => {
    expect(unclaimedNotice(record, at(seconds))).toBe(expected);
  });

  it('the notice falls due 30 s after the run was created, and never for a run a controller claimed', () => {
    expect(unclaimedNoticeDueAt(run('Pending', 0))).toBe(at(30));
    expect(unclaimedNoticeDueAt(run('Pending', 1))).toBeUndefined();
    expect(unclaimedNoticeDueAt(run('Running', 1))).toBeUndefined();
  });
});
