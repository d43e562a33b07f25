import {
  type ApprovalWindow,
  type Freeze,
  windowState,
  windowStateText,
} from '../../../../../shared/contract/rules/approval-windows.ts';
import { DataTable } from './common.tsx';

/** What the Project page shows of `spec.approvalPolicy`: its freeze, and its windows. */
export interface ApprovalPolicySpec {
  windows?: ApprovalWindow[];
  freeze?: Freeze;
}

/**
 * A window's state at `now` as the server judges it, cron schedules in their time zone included: the browser runs
 * the same evaluation (shared/contract/rules/approval-windows.ts), one copy.
 */
const stateText = (window: ApprovalWindow, now: number) => windowStateText(windowState(window, new Date(now)));

const schedule = (window: ApprovalWindow) =>
  window.schedule !== undefined
    ? `${window.schedule} (${window.timeZone ?? 'UTC'}) for ${window.duration ?? '?'}`
    : `${window.start} to ${window.end}`;

const targets = (window: ApprovalWindow) =>
  [
    window.appliesTo?.rollouts?.length ? `rollouts: ${window.appliesTo.rollouts.join(', ')}` : '',
    window.appliesTo?.applies?.length ? `applies: ${window.appliesTo.applies.join(', ')}` : '',
  ]
    .filter(Boolean)
    .join('; ');

/** The Project's freeze (an alert while active) and its approval windows, with which is open and when the next opens. */
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
        <DataTable columns={['Window', 'Kind', 'Applies to', 'When', 'State']}>
          {windows.map((window) => (
            <tr key={window.name} data-testid={`window-${window.name}`}>
              <td>{window.name}</td>
              <td>{window.kind}</td>
              <td>{targets(window)}</td>
              <td>{schedule(window)}</td>
              <td>{stateText(window, now)}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}
