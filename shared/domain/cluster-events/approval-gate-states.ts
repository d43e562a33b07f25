import {
  type ApprovalWindow,
  type WindowPolicy,
  windowOpening,
  windowProblem,
} from '../../contract/rules/approval-windows.ts';

/**
 * A gate of a Project's approval policy as the reconciler sees it at one instant: a window (`window:<name>`)
 * open or shut, with the opening it is in; or the freeze (`freeze`) active or not. A window that cannot be
 * evaluated has no state (the approval judge refuses what it governs; nothing opened or closed).
 */
export interface ObservedGate {
  gate: string;
  open: boolean;
  opening?: { start: Date; end: Date };
  window?: ApprovalWindow;
}

/** The state recorded of a gate. */
export interface RecordedGate {
  open: boolean;
  openingStart: Date | null;
  openingEnd: Date | null;
}

/** A gate event: the outbox type (`window.opened`, `window.closed`, `freeze.started`, `freeze.lifted`). */
export type GateEvent = 'window.opened' | 'window.closed' | 'freeze.started' | 'freeze.lifted';

export const FREEZE_GATE = 'freeze';
export const windowGate = (name: string) => `window:${name}`;

/** Every gate of `policy` at `now`. */
export function gateStatesOf(policy: WindowPolicy | undefined, now: Date): ObservedGate[] {
  const windows = (policy?.windows ?? []).flatMap((window): ObservedGate[] => {
    if (typeof window?.name !== 'string' || windowProblem(window) !== undefined) return [];
    const opening = windowOpening(window, now);
    return [{ gate: windowGate(window.name), open: opening !== undefined, ...(opening ? { opening } : {}), window }];
  });
  return [...windows, { gate: FREEZE_GATE, open: policy?.freeze?.active === true }];
}

/**
 * The event a gate's change is, if any. A gate first seen records its state without an event (a window that is
 * open when the platform first looks did not just open).
 */
export function gateEventOf(recorded: RecordedGate | undefined, observed: ObservedGate): GateEvent | undefined {
  if (recorded === undefined || recorded.open === observed.open) return undefined;
  if (observed.gate === FREEZE_GATE) return observed.open ? 'freeze.started' : 'freeze.lifted';
  return observed.open ? 'window.opened' : 'window.closed';
}

/** The instant that names a gate event in its id, to the minute: the opening that began, or the one that ended. */
export function transitionMinute(event: GateEvent, recorded: RecordedGate, observed: ObservedGate): string | undefined {
  const at =
    event === 'window.opened' ? observed.opening?.start : event === 'window.closed' ? recorded.openingEnd : null;
  if (!at) return undefined;
  return new Date(Math.floor(at.getTime() / 60_000) * 60_000).toISOString();
}
