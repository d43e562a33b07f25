import { Cron } from 'croner';
import { parseGoDuration } from './go-duration.ts';

// The approval windows and the freeze of a Project's `spec.approvalPolicy` (issue 45 item 3, docs/resources.md
// "Windows, freezes and overrides"): their shapes as the CRD declares them, and their evaluation, as Argo CD
// evaluates sync windows. One copy for every client: the server judges approvals and applies with it, the console
// shows with it which window is open and when the next opens, in the browser (browser-safe: croner and this
// folder only). Pure: the clock is the caller's.

/** One window of `spec.approvalPolicy.windows[]`: a cron schedule with a duration and a time zone, or a range. */
export interface ApprovalWindow {
  name: string;
  kind: 'allow' | 'deny';
  /** 5-field cron: when the window opens, in `timeZone`; it stays open for `duration`. */
  schedule?: string;
  /** Go duration (`2h`, `30m`), WINDOW_DURATION_BOUNDS. */
  duration?: string;
  /** IANA zone of the schedule; UTC when absent. */
  timeZone?: string;
  /** RFC 3339 range instead of a schedule: open from `start` (included) to `end` (excluded). */
  start?: string;
  end?: string;
  /** Which Rollouts (their promotions) and which Workspaces (their applies) the window governs; `*` is any. */
  appliesTo: { rollouts?: string[]; applies?: string[] };
}

/** `spec.approvalPolicy.freeze`: "stop the line". */
export interface Freeze {
  active: boolean;
  reason?: string;
  since?: string;
}

// A deny window that is open for a target always refuses; when any allow window applies to the target, it is
// allowed only while one is open; with none, it is allowed. The freeze refuses everything.

/** The part of a Project's approval policy this module reads. */
export interface WindowPolicy {
  windows?: ApprovalWindow[];
  freeze?: Freeze;
}

/** What is gated: a stage approval of a Rollout (a promotion), or an apply of a Workspace. */
export type GatedTarget = { rollout: string } | { apply: string };

export type WindowVerdict =
  | { allowed: true }
  | {
      refused: 'ProjectFrozen' | 'OutsideApprovalWindow';
      /** A sentence naming the window (or the freeze) and, when known, when it opens (RFC 3339). */
      reason: string;
      windowName?: string;
      opensAt?: string;
    };

/** Bounds of a scheduled window's `duration`: at least a minute, at most 31 days (a monthly schedule). */
export const WINDOW_DURATION_BOUNDS = { minMs: 60_000, maxMs: 31 * 24 * 3_600_000 } as const;

/** How many later openings are tried when the first one found is itself refused (a deny window over an allow one). */
const OPENING_SEARCH_STEPS = 16;

/** A window read into instants: whether it is open at an instant, and where its current or next opening is. */
interface Schedule {
  /** The opening that contains `at` (start included, end excluded), if any. */
  openingAt(at: Date): { start: Date; end: Date } | undefined;
  /** The first opening that starts after `at`, if there is one. */
  nextStart(at: Date): Date | undefined;
}

/** Why a window cannot be evaluated: the field of the window at fault and what is wrong with it. */
export interface WindowFieldProblem {
  field: 'schedule' | 'duration' | 'timeZone' | 'start' | 'end';
  message: string;
}

/** A window that cannot be read, with the field at fault. */
class UnreadableWindow extends Error {
  readonly problem: WindowFieldProblem;
  constructor(problem: WindowFieldProblem) {
    super(problem.message);
    this.problem = problem;
  }
}

const unreadable = (field: WindowFieldProblem['field'], message: string) => new UnreadableWindow({ field, message });

/** Why a window cannot be evaluated (written outside the API, or with a typo), naming its field; undefined when it can. */
export function windowFieldProblem(window: ApprovalWindow): WindowFieldProblem | undefined {
  try {
    scheduleOf(window);
    return undefined;
  } catch (error) {
    if (error instanceof UnreadableWindow) return error.problem;
    throw error;
  }
}

/** Why a window cannot be evaluated, in one sentence; undefined when it can. */
export function windowProblem(window: ApprovalWindow): string | undefined {
  return windowFieldProblem(window)?.message;
}

function scheduleOf(window: ApprovalWindow): Schedule {
  if (window.schedule !== undefined) {
    const duration = parseGoDuration(window.duration ?? '');
    if (duration === null || duration < WINDOW_DURATION_BOUNDS.minMs || duration > WINDOW_DURATION_BOUNDS.maxMs)
      throw unreadable('duration', `duration "${window.duration ?? ''}" is not a Go duration between 1m and 744h`);
    const timezone = window.timeZone ?? 'UTC';
    if (!isTimeZone(timezone)) throw unreadable('timeZone', `timeZone "${timezone}" is not an IANA time zone`);
    if (window.schedule.trim().split(/\s+/).length !== 5)
      throw unreadable('schedule', `schedule "${window.schedule}" is not a 5-field cron expression`);
    let cron: Cron;
    try {
      cron = new Cron(window.schedule, { timezone, paused: true, legacyMode: true });
    } catch (error) {
      throw unreadable(
        'schedule',
        `schedule "${window.schedule}" is not a 5-field cron expression: ${(error as Error).message}`,
      );
    }
    return {
      // An opening contains `at` when it started at most `duration` ago: the first start after `at - duration`.
      openingAt(at) {
        const start = cron.nextRun(new Date(at.getTime() - duration));
        if (!start || start.getTime() > at.getTime()) return undefined;
        return { start, end: new Date(start.getTime() + duration) };
      },
      nextStart: (at) => cron.nextRun(at) ?? undefined,
    };
  }
  const start = Date.parse(window.start ?? '');
  const end = Date.parse(window.end ?? '');
  if (Number.isNaN(start)) throw unreadable('start', 'a window needs a schedule, or an RFC 3339 start before its end');
  if (Number.isNaN(end)) throw unreadable('end', 'a window with a start needs an RFC 3339 end after it');
  if (end <= start) throw unreadable('end', `end ${window.end} is not after start ${window.start}`);
  return {
    openingAt: (at) =>
      at.getTime() >= start && at.getTime() < end ? { start: new Date(start), end: new Date(end) } : undefined,
    nextStart: (at) => (at.getTime() < start ? new Date(start) : undefined),
  };
}

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** Whether `window` governs `target`. */
export function windowApplies(window: ApprovalWindow, target: GatedTarget): boolean {
  const names = 'rollout' in target ? window.appliesTo?.rollouts : window.appliesTo?.applies;
  const name = 'rollout' in target ? target.rollout : target.apply;
  return (names ?? []).some((candidate) => candidate === '*' || candidate === name);
}

const describeTarget = (target: GatedTarget) =>
  'rollout' in target ? `promotions of rollout "${target.rollout}"` : `applies of workspace "${target.apply}"`;

/** Whether the policy lets `target` be approved or applied at `now`; a refusal names the window and when it opens. */
export function evaluateWindows(policy: WindowPolicy | undefined, target: GatedTarget, now: Date): WindowVerdict {
  const freeze = policy?.freeze;
  if (freeze?.active === true)
    return {
      refused: 'ProjectFrozen',
      reason: `the project is frozen${freeze.since ? ` since ${freeze.since}` : ''}${freeze.reason ? `: ${freeze.reason}` : ''}; it opens when spec.approvalPolicy.freeze.active is set to false`,
    };
  const verdict = windowVerdict(policy, target, now);
  if ('allowed' in verdict) return verdict;
  const opensAt = openingAfter(policy, target, verdict);
  return {
    refused: 'OutsideApprovalWindow',
    windowName: verdict.windowName,
    reason: `${describeTarget(target)} ${verdict.why}; ${opensAt ? `it opens at ${opensAt.toISOString()}` : 'no later opening is scheduled'}`,
    ...(opensAt ? { opensAt: opensAt.toISOString() } : {}),
  };
}

type WindowsOnly = { allowed: true } | { windowName: string; why: string; candidate?: Date };

/** The windows' verdict alone; a refusal carries the first instant at which it may end (`candidate`). */
function windowVerdict(policy: WindowPolicy | undefined, target: GatedTarget, now: Date): WindowsOnly {
  const applying = (policy?.windows ?? []).filter((window) => windowApplies(window, target));
  const schedules = new Map<ApprovalWindow, Schedule>();
  for (const window of applying) {
    try {
      schedules.set(window, scheduleOf(window));
    } catch (error) {
      // Fails closed: a window that cannot be read is a window nobody can tell is shut.
      return {
        windowName: window.name,
        why: `are refused: window "${window.name}" cannot be evaluated (${(error as Error).message})`,
      };
    }
  }
  for (const window of applying.filter((candidate) => candidate.kind === 'deny')) {
    const opening = schedules.get(window)!.openingAt(now);
    if (opening)
      return {
        windowName: window.name,
        why: `are refused by deny window "${window.name}" (open until ${opening.end.toISOString()})`,
        candidate: opening.end,
      };
  }
  const allows = applying.filter((candidate) => candidate.kind === 'allow');
  if (allows.length === 0 || allows.some((window) => schedules.get(window)!.openingAt(now))) return { allowed: true };
  const next = allows
    .map((window) => ({ window, start: schedules.get(window)!.nextStart(now) }))
    .filter((entry): entry is { window: ApprovalWindow; start: Date } => entry.start !== undefined)
    .sort((a, b) => a.start.getTime() - b.start.getTime())[0];
  const names = allows.map((window) => `"${window.name}"`).join(', ');
  return {
    windowName: next?.window.name ?? allows[0]!.name,
    why: `are allowed only inside allow window ${names}, and none is open`,
    ...(next ? { candidate: next.start } : {}),
  };
}

/** The first instant after a refusal at which the windows allow `target`, searched a bounded number of steps. */
function openingAfter(
  policy: WindowPolicy | undefined,
  target: GatedTarget,
  refusal: Exclude<WindowsOnly, { allowed: true }>,
): Date | undefined {
  let candidate = refusal.candidate;
  for (let step = 0; step < OPENING_SEARCH_STEPS && candidate; step++) {
    const verdict = windowVerdict(policy, target, candidate);
    if ('allowed' in verdict) return candidate;
    candidate = verdict.candidate && verdict.candidate > candidate ? verdict.candidate : undefined;
  }
  return undefined;
}

/** The windows that govern `target` and are open at `now`, each with when its opening ends (for clients to show). */
export function openWindows(
  policy: WindowPolicy | undefined,
  target: GatedTarget,
  now: Date,
): Array<{ windowName: string; kind: 'allow' | 'deny'; until: string }> {
  return (policy?.windows ?? []).flatMap((window) => {
    if (!windowApplies(window, target) || windowProblem(window) !== undefined) return [];
    const opening = scheduleOf(window).openingAt(now);
    return opening ? [{ windowName: window.name, kind: window.kind, until: opening.end.toISOString() }] : [];
  });
}

/** One window as a client shows it at `now`: open until when, or when it next opens; or why it cannot be read. */
export type WindowState =
  | { open: true; until: string }
  | { open: false; nextOpensAt?: string }
  | { open: false; problem: string };

/** The state of `window` at `now` (whatever it governs): the console's and the plugin's "which window is open". */
export function windowState(window: ApprovalWindow, now: Date): WindowState {
  let schedule: Schedule;
  try {
    schedule = scheduleOf(window);
  } catch (error) {
    if (error instanceof UnreadableWindow) return { open: false, problem: error.message };
    throw error;
  }
  const opening = schedule.openingAt(now);
  if (opening) return { open: true, until: opening.end.toISOString() };
  const next = schedule.nextStart(now);
  return next ? { open: false, nextOpensAt: next.toISOString() } : { open: false };
}

/** The opening of `window` that contains `now` (start included, end excluded); undefined when shut or unreadable. */
export function windowOpening(window: ApprovalWindow, now: Date): { start: Date; end: Date } | undefined {
  return windowProblem(window) === undefined ? scheduleOf(window).openingAt(now) : undefined;
}

/** A window's state in words, as the plugin and the console show it: `open until ...`, `opens at ...`, ... */
export function windowStateText(state: WindowState): string {
  if (state.open) return `open until ${state.until}`;
  if ('problem' in state) return `cannot be evaluated: ${state.problem}`;
  return state.nextOpensAt ? `opens at ${state.nextOpensAt}` : 'no later opening';
}

/** A window that opened or closed between two instants (for notifications; nothing is delivered here). */
export interface WindowTransition {
  windowName: string;
  kind: 'allow' | 'deny';
  change: 'opened' | 'closed';
}

/**
 * The windows whose state changed between `from` and `to`: open at one and shut at the other. A window that
 * opened and closed again in between is not seen; poll more often than the shortest duration.
 */
export function windowTransitions(policy: WindowPolicy | undefined, from: Date, to: Date): WindowTransition[] {
  const transitions: WindowTransition[] = [];
  for (const window of policy?.windows ?? []) {
    let schedule: Schedule;
    try {
      schedule = scheduleOf(window);
    } catch {
      continue;
    }
    const before = schedule.openingAt(from) !== undefined;
    const after = schedule.openingAt(to) !== undefined;
    if (before !== after)
      transitions.push({ windowName: window.name, kind: window.kind, change: after ? 'opened' : 'closed' });
  }
  return transitions;
}
