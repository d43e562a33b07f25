// Issue 45, items 3 and 4: the evaluation of a Project's approval windows, freeze and soak times
// (shared/approvals), pure and judged on fixed clocks: time zones, DST edges, cron schedules and ranges.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { soakVerdict } from '../../../shared/domain/approvals/soak-time.ts';
import {
  evaluateWindows,
  windowFieldProblem,
  windowProblem,
  windowState,
  windowTransitions,
  type ApprovalWindow,
  type WindowPolicy,
} from '../../../shared/contract/rules/approval-windows.ts';
import type { PlatformObject } from '../../../shared/contract/kinds/platform-object.ts';

const ALL = { rollouts: ['*'], applies: ['*'] };
const at = (text: string) => new Date(text);

/** Weekday office hours in Berlin, and a weekend deny window from Friday 18:00 to Monday 09:00 Berlin time. */
const OFFICE: ApprovalWindow = {
  name: 'office-hours',
  kind: 'allow',
  schedule: '0 9 * * 1-5',
  duration: '8h',
  timeZone: 'Europe/Berlin',
  appliesTo: { rollouts: ['web'] },
};
const WEEKEND: ApprovalWindow = {
  name: 'weekend',
  kind: 'deny',
  schedule: '0 18 * * 5',
  duration: '63h',
  timeZone: 'Europe/Berlin',
  appliesTo: ALL,
};

describe('Issue 45, item 3: with no window and no freeze, everything is allowed', () => {
  it('any target at any instant', () => {
    fc.assert(
      fc.property(fc.date({ noInvalidDate: true }), fc.string({ minLength: 1 }), (now, name) => {
        expect(evaluateWindows(undefined, { rollout: name }, now)).toEqual({ allowed: true });
        expect(evaluateWindows({ windows: [] }, { apply: name }, now)).toEqual({ allowed: true });
      }),
    );
  });
});

describe('Issue 45, item 3: a deny window that is open refuses, naming the window and when it opens', () => {
  it('Saturday noon is inside the weekend window: refused until Monday 09:00 Berlin (08:00Z in winter)', () => {
    expect(evaluateWindows({ windows: [WEEKEND] }, { apply: 'network' }, at('2026-12-05T12:00:00Z'))).toEqual({
      refused: 'OutsideApprovalWindow',
      windowName: 'weekend',
      opensAt: '2026-12-07T08:00:00.000Z',
      reason: expect.stringContaining('deny window "weekend"'),
    });
  });

  it('a deny window wins over an open allow window', () => {
    const wide: ApprovalWindow = { ...OFFICE, name: 'always', schedule: '0 0 * * *', duration: '24h' };
    const verdict = evaluateWindows({ windows: [wide, WEEKEND] }, { rollout: 'web' }, at('2026-12-05T12:00:00Z'));
    expect(verdict).toMatchObject({ refused: 'OutsideApprovalWindow', windowName: 'weekend' });
  });

  it('property: inside any range deny window the target is refused, and opensAt is the range end; outside it is allowed', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2_000_000_000 }),
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.integer({ min: -2_000_000, max: 2_000_000 }),
        (startSeconds, lengthSeconds, offsetSeconds) => {
          const start = startSeconds * 1000;
          const end = start + lengthSeconds * 1000;
          const window: ApprovalWindow = {
            name: 'range',
            kind: 'deny',
            start: new Date(start).toISOString(),
            end: new Date(end).toISOString(),
            appliesTo: ALL,
          };
          const now = new Date(start + offsetSeconds * 1000);
          const verdict = evaluateWindows({ windows: [window] }, { apply: 'w' }, now);
          if (now.getTime() >= start && now.getTime() < end)
            expect(verdict).toMatchObject({ windowName: 'range', opensAt: new Date(end).toISOString() });
          else expect(verdict).toEqual({ allowed: true });
        },
      ),
    );
  });
});

describe('Issue 45, item 3: where an allow window applies, only inside it', () => {
  it('Monday 07:00Z (08:00 Berlin) is before office hours: refused, opens at 08:00Z; 08:00Z is inside', () => {
    const policy = { windows: [OFFICE] };
    expect(evaluateWindows(policy, { rollout: 'web' }, at('2026-12-07T07:00:00Z'))).toMatchObject({
      refused: 'OutsideApprovalWindow',
      windowName: 'office-hours',
      opensAt: '2026-12-07T08:00:00.000Z',
    });
    expect(evaluateWindows(policy, { rollout: 'web' }, at('2026-12-07T08:00:00Z'))).toEqual({ allowed: true });
    expect(evaluateWindows(policy, { rollout: 'web' }, at('2026-12-07T15:59:59Z'))).toEqual({ allowed: true });
    // The end is excluded.
    expect(evaluateWindows(policy, { rollout: 'web' }, at('2026-12-07T16:00:00Z'))).toMatchObject({
      opensAt: '2026-12-08T08:00:00.000Z',
    });
  });

  it('an allow window for other Rollouts does not gate this one', () => {
    expect(evaluateWindows({ windows: [OFFICE] }, { rollout: 'api' }, at('2026-12-07T02:00:00Z'))).toEqual({
      allowed: true,
    });
  });

  it('the opening found skips a deny window that covers the next allow opening', () => {
    // Friday 20:00 Berlin: office hours are over, and the next opening (Saturday? no: Monday 09:00) is after the weekend.
    const verdict = evaluateWindows({ windows: [OFFICE, WEEKEND] }, { rollout: 'web' }, at('2026-12-04T19:00:00Z'));
    expect(verdict).toMatchObject({ windowName: 'weekend', opensAt: '2026-12-07T08:00:00.000Z' });
  });

  it('property: a refusal always carries an opensAt at which the policy allows the target', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1_767_225_600, max: 1_830_297_600 }), (seconds) => {
        const now = new Date(seconds * 1000);
        const policy = { windows: [OFFICE, WEEKEND] };
        const verdict = evaluateWindows(policy, { rollout: 'web' }, now);
        if ('allowed' in verdict) return;
        expect(verdict.opensAt).toBeDefined();
        expect(Date.parse(verdict.opensAt!)).toBeGreaterThan(now.getTime());
        expect(evaluateWindows(policy, { rollout: 'web' }, new Date(verdict.opensAt!))).toEqual({ allowed: true });
      }),
      { numRuns: 300 },
    );
  });
});

describe('Issue 45, item 3: schedules are evaluated in their time zone, across DST changes', () => {
  const nineInBerlin: ApprovalWindow = { ...OFFICE, schedule: '0 9 * * *', duration: '1h' };
  it('09:00 Berlin is 08:00Z in winter and 07:00Z in summer, on either side of the spring change (29 March 2026)', () => {
    const policy = { windows: [nineInBerlin] };
    expect(evaluateWindows(policy, { rollout: 'web' }, at('2026-03-28T08:30:00Z'))).toEqual({ allowed: true });
    expect(evaluateWindows(policy, { rollout: 'web' }, at('2026-03-29T07:30:00Z'))).toEqual({ allowed: true });
    expect(evaluateWindows(policy, { rollout: 'web' }, at('2026-03-29T08:30:00Z'))).toMatchObject({
      opensAt: '2026-03-30T07:00:00.000Z',
    });
  });

  it('a window at 02:30 New York time does not open on the spring-forward day, when 02:30 does not exist (documented)', () => {
    const window: ApprovalWindow = {
      name: 'night',
      kind: 'allow',
      schedule: '30 2 * * *',
      duration: '30m',
      timeZone: 'America/New_York',
      appliesTo: ALL,
    };
    // 8 March 2026 00:00 EST: the next 02:30 that exists is on 9 March, in EDT (06:30Z).
    expect(evaluateWindows({ windows: [window] }, { apply: 'w' }, at('2026-03-08T05:00:00Z'))).toMatchObject({
      refused: 'OutsideApprovalWindow',
      opensAt: '2026-03-09T06:30:00.000Z',
    });
    expect(evaluateWindows({ windows: [window] }, { apply: 'w' }, at('2026-03-09T06:45:00Z'))).toEqual({
      allowed: true,
    });
  });

  it('property: a daily window in UTC is open exactly in its hour', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 23 }),
        fc.integer({ min: 1_767_225_600, max: 1_830_297_600 }),
        (hour, s) => {
          const window: ApprovalWindow = {
            name: 'daily',
            kind: 'allow',
            schedule: `0 ${hour} * * *`,
            duration: '1h',
            appliesTo: ALL,
          };
          const now = new Date(s * 1000);
          const open = 'allowed' in evaluateWindows({ windows: [window] }, { apply: 'w' }, now);
          expect(open).toBe(now.getUTCHours() === hour);
        },
      ),
    );
  });
});

describe('Issue 45, item 3: a window that cannot be evaluated fails closed, naming what is wrong', () => {
  it.each([
    ['an unknown time zone', { timeZone: 'Mars/Olympus' }, 'timeZone'],
    ['a 6-field cron', { schedule: '0 0 9 * * *' }, '5-field'],
    ['a malformed cron', { schedule: 'every day' }, '5-field'],
    ['a duration above 744h', { duration: '745h' }, 'duration'],
    ['a duration below 1m', { duration: '30s' }, 'duration'],
  ])('%s', (_case, change, named) => {
    const window = { ...OFFICE, ...change };
    expect(windowProblem(window)).toContain(named);
    expect(evaluateWindows({ windows: [window] }, { rollout: 'web' }, at('2026-12-07T10:00:00Z'))).toMatchObject({
      refused: 'OutsideApprovalWindow',
      windowName: 'office-hours',
      reason: expect.stringContaining('cannot be evaluated'),
    });
  });
});

describe('Issue 45, item 3: a window that cannot be evaluated names its field (what a Project write is refused with)', () => {
  it.each([
    ['an unknown time zone', { timeZone: 'Mars/Olympus' }, 'timeZone'],
    ['a 6-field cron', { schedule: '0 0 9 * * *' }, 'schedule'],
    ['a malformed cron', { schedule: 'every day' }, 'schedule'],
    ['an out-of-range cron field', { schedule: '0 25 * * *' }, 'schedule'],
    ['a duration above 744h', { duration: '745h' }, 'duration'],
    ['no duration', { duration: undefined }, 'duration'],
  ])('%s: %s', (_case, change, field) => {
    expect(windowFieldProblem({ ...OFFICE, ...change })).toMatchObject({ field, message: expect.any(String) });
  });

  const RANGE = { name: 'change-freeze', kind: 'deny' as const, appliesTo: ALL };
  it.each([
    ['an end before its start', { start: '2026-12-24T00:00:00Z', end: '2026-12-23T00:00:00Z' }, 'end'],
    ['an end equal to its start', { start: '2026-12-24T00:00:00Z', end: '2026-12-24T00:00:00Z' }, 'end'],
    ['a start that is no date', { start: 'Christmas', end: '2026-12-27T00:00:00Z' }, 'start'],
    ['a start without an end', { start: '2026-12-24T00:00:00Z' }, 'end'],
    ['neither a schedule nor a range', {}, 'start'],
  ])('a range window with %s: %s', (_case, change, field) => {
    expect(windowFieldProblem({ ...RANGE, ...change })).toMatchObject({ field });
  });

  it('a window that can be evaluated has no problem', () => {
    expect(windowFieldProblem(OFFICE)).toBeUndefined();
    expect(
      windowFieldProblem({ ...RANGE, start: '2026-12-24T00:00:00Z', end: '2026-12-27T00:00:00Z' }),
    ).toBeUndefined();
  });
});

describe('Issue 45, item 3 (console and plugin): which window is open now and when the next opens', () => {
  it('office hours on a Monday: open until 17:00 Berlin; before them, the next opening; a range after its end: none', () => {
    expect(windowState(OFFICE, at('2026-12-07T10:00:00Z'))).toEqual({ open: true, until: '2026-12-07T16:00:00.000Z' });
    expect(windowState(OFFICE, at('2026-12-05T12:00:00Z'))).toEqual({
      open: false,
      nextOpensAt: '2026-12-07T08:00:00.000Z',
    });
    const range: ApprovalWindow = {
      name: 'past',
      kind: 'deny',
      start: '2026-01-01T00:00:00Z',
      end: '2026-01-02T00:00:00Z',
      appliesTo: ALL,
    };
    expect(windowState(range, at('2026-12-07T10:00:00Z'))).toEqual({ open: false });
    expect(windowState(range, at('2025-12-31T00:00:00Z'))).toEqual({
      open: false,
      nextOpensAt: '2026-01-01T00:00:00.000Z',
    });
  });

  it('a window that cannot be evaluated says why', () => {
    expect(windowState({ ...OFFICE, timeZone: 'Mars/Olympus' }, at('2026-12-07T10:00:00Z'))).toEqual({
      open: false,
      problem: expect.stringContaining('timeZone'),
    });
  });
});

describe('Issue 45, item 3: a freeze stops the line', () => {
  it('every target is refused with ProjectFrozen and the freeze reason, whatever the windows say', () => {
    const policy: WindowPolicy = {
      freeze: { active: true, reason: 'incident 4711', since: '2026-12-01T00:00:00Z' },
      windows: [{ ...OFFICE, appliesTo: ALL, schedule: '0 0 * * *', duration: '24h' }],
    };
    fc.assert(
      fc.property(fc.date({ noInvalidDate: true, min: at('2000-01-01'), max: at('2100-01-01') }), (now) => {
        const verdict = evaluateWindows(policy, { apply: 'w' }, now);
        expect(verdict).toMatchObject({ refused: 'ProjectFrozen', reason: expect.stringContaining('incident 4711') });
      }),
    );
    expect(evaluateWindows({ freeze: { active: false } }, { apply: 'w' }, at('2026-12-07T10:00:00Z'))).toEqual({
      allowed: true,
    });
  });
});

describe('Issue 45, item 3 (for notifications): which windows opened or closed between two instants', () => {
  it('Monday morning in Berlin: the weekend closed and office hours opened', () => {
    const changes = windowTransitions(
      { windows: [OFFICE, WEEKEND] },
      at('2026-12-07T07:00:00Z'),
      at('2026-12-07T09:00:00Z'),
    );
    expect(changes).toHaveLength(2);
    expect(changes).toEqual(
      expect.arrayContaining([
        { windowName: 'office-hours', kind: 'allow', change: 'opened' },
        { windowName: 'weekend', kind: 'deny', change: 'closed' },
      ]),
    );
    expect(windowTransitions({ windows: [OFFICE] }, at('2026-12-07T09:00:00Z'), at('2026-12-07T10:00:00Z'))).toEqual(
      [],
    );
  });
});

describe('Issue 45, item 4: soak time counts from what the server recorded for the current revision', () => {
  const rollout = (status: Record<string, unknown>): PlatformObject => ({
    apiVersion: 'platform.dev/v1alpha1',
    kind: 'Rollout',
    metadata: { name: 'web', namespace: 'team-a' },
    spec: {
      revision: 'r2',
      stages: [{ workspace: 'staging' }, { workspace: 'prod', approval: { required: true } }, { workspace: 'prod-eu' }],
    },
    status,
  });
  const policy = [
    { rollout: 'web', stage: 'prod', soakTime: '2h' },
    { rollout: 'web', stage: 'prod-eu', soakTime: '30m' },
  ];
  const written = { revisionAuthor: { principal: 'alice', revision: 'r2', changedAt: '2026-12-07T10:00:00Z' } };

  it('an ungated previous stage: from status.revisionAuthor.changedAt of the current revision', () => {
    expect(soakVerdict(policy, rollout(written), 'prod', at('2026-12-07T11:59:59Z'))).toMatchObject({
      refused: 'SoakTimeNotElapsed',
      opensAt: '2026-12-07T12:00:00.000Z',
    });
    expect(soakVerdict(policy, rollout(written), 'prod', at('2026-12-07T12:00:00Z'))).toEqual({ allowed: true });
  });

  it('a gated previous stage: from its status.stages[].approval.approvedAt; a record of another revision does not count', () => {
    const approved = (revision: string) =>
      rollout({
        ...written,
        stages: [{ workspace: 'prod', approval: { approvedBy: 'bob', approvedAt: '2026-12-07T12:30:00Z', revision } }],
      });
    expect(soakVerdict(policy, approved('r2'), 'prod-eu', at('2026-12-07T12:45:00Z'))).toMatchObject({
      opensAt: '2026-12-07T13:00:00.000Z',
    });
    expect(soakVerdict(policy, approved('r2'), 'prod-eu', at('2026-12-07T13:00:00Z'))).toEqual({ allowed: true });
    expect(soakVerdict(policy, approved('r1'), 'prod-eu', at('2026-12-08T00:00:00Z'))).toMatchObject({
      refused: 'SoakTimeNotElapsed',
      reason: expect.stringContaining('no approval of stage "prod"'),
    });
  });

  it('the first stage, and stages without a soak time, are not held', () => {
    expect(
      soakVerdict(
        [{ rollout: 'web', stage: 'staging', soakTime: '1h' }],
        rollout({}),
        'staging',
        at('2026-12-07T00:00:00Z'),
      ),
    ).toEqual({
      allowed: true,
    });
    expect(soakVerdict([], rollout({}), 'prod', at('2026-12-07T00:00:00Z'))).toEqual({ allowed: true });
  });

  it('a failed previous stage holds the next one', () => {
    const failed = rollout({ ...written, stages: [{ workspace: 'staging', phase: 'Failed' }] });
    expect(soakVerdict(policy, failed, 'prod', at('2027-01-01T00:00:00Z'))).toMatchObject({
      reason: expect.stringContaining('failed'),
    });
  });
});
