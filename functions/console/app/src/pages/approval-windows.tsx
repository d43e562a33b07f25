import type { ApprovalWindow, Freeze } from '../../../../../shared/contract/rules/approval-windows.ts';
import { DataTable } from './common.tsx';

/** What the Project page shows of `spec.approvalPolicy`: its freeze, and its windows. */
export interface ApprovalPolicySpec {
  windows?: ApprovalWindow[];
  freeze?: Freeze;
}

/**
 * A range window's state at `now`: open until its end, or when it opens. A scheduled window is evaluated by the
 * server (cron in its time zone) when something is approved or applied; here it shows its schedule.
 */
function windowState(window: ApprovalWindow, now: number): string {
  if (window.schedule !== undefined)
    return `opens ${window.schedule} (${window.timeZone ?? 'UTC'}) for ${window.duration ?? '?'}`;
  const start = Date.parse(window.start ?? '');
  const end = Date.parse(window.end ?? '');
  if (now < start) return `opens at ${window.start}`;
  if (now < end) return `open until ${window.end}`;
  return `ended ${window.end}`;
}

const targets = (window: ApprovalWindow) =>
  [
    window.appliesTo?.rollouts?.length ? `rollouts: ${window.appliesTo.rollouts.join(', ')}` : '',
    window.appliesTo?.applies?.length ? `applies: ${window.appliesTo.applies.join(', ')}` : '',
  ]
    .filter(Boolean)
    .join('; ');

/** The Project's freeze (an alert while active) and its approval windows, with which range is open and when the next opens. */
export function ApprovalWindows({ policy, now }: { policy: ApprovalPolicySpec | undefined; now: number }) {
  const freeze = policy?.freeze;
  const windows = policy?.windows ?? [];
  if (freeze?.active !== true && windows.length === 0) return null;
  return (
    <section aria-labelledby="approval-windows">
      <h2 id="approval-windows">Approval windows</h2>
      {freeze?.active === true && (
        <p class="warnings" role="alert" data-testid="project-freeze">
          Frozen{freeze.since ? ` since ${freeze.since}` : ''}
          {freeze.reason ? `: ${freeze.reason}` : ''}. No stage is approved and nothing is applied in this Project
          unless an incident commander overrides it.
        </p>
      )}
      {windows.length > 0 && (
        <DataTable columns={['Window', 'Kind', 'Applies to', 'State']}>
          {windows.map((window) => (
            <tr key={window.name} data-testid={`window-${window.name}`}>
              <td>{window.name}</td>
              <td>{window.kind}</td>
              <td>{targets(window)}</td>
              <td>{windowState(window, now)}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}
