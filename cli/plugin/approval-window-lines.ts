// What `kubectl platform rollouts get` says of the Project's approval windows and freeze (issue 45 item 3,
// docs/resources.md "Windows, freezes and overrides"): whether the Rollout's stages may be approved now, by
// which window, and when that changes; evaluated by the server's own rules (shared/contract/rules/approval-windows.ts).
import { timeGatesOf } from '../../shared/domain/approvals/time-gates.ts';
import { evaluateWindows, openWindows } from '../../shared/contract/rules/approval-windows.ts';
import type { PlatformObject } from '../../shared/contract/kinds/platform-object.ts';
import type { PlatformConnection } from './platform-connection.ts';

/** The Project that owns `namespace`, or undefined when the caller may not read it (the lines are then left out). */
export async function readProject(
  connection: PlatformConnection,
  group: string,
  version: string,
  namespace: string,
): Promise<PlatformObject | undefined> {
  try {
    return (await connection.call('GET', `/apis/${group}/${version}/projects/${encodeURIComponent(namespace)}`))
      .body as PlatformObject;
  } catch {
    return undefined;
  }
}

/** Summary lines (label, value) for the Rollout's stage approvals at `now`: the freeze, and the windows. */
export function approvalWindowLines(
  project: PlatformObject | undefined,
  rollout: string,
  now: Date,
): [string, string][] {
  const policy = timeGatesOf(project);
  const lines: [string, string][] = [];
  if (policy.freeze?.active === true)
    lines.push([
      'Freeze',
      `frozen${policy.freeze.since ? ` since ${policy.freeze.since}` : ''}${policy.freeze.reason ? `: ${policy.freeze.reason}` : ''}`,
    ]);
  if ((policy.windows ?? []).length === 0) return lines;
  const verdict = evaluateWindows({ windows: policy.windows }, { rollout }, now);
  if ('allowed' in verdict) {
    const open = openWindows(policy, { rollout }, now).filter((window) => window.kind === 'allow');
    lines.push([
      'Window',
      open.length > 0
        ? `open: ${open.map((window) => `allow window "${window.windowName}" until ${window.until}`).join(', ')}`
        : 'open (no window governs this Rollout now)',
    ]);
  } else
    lines.push([
      'Window',
      `closed by "${verdict.windowName}"; ${verdict.opensAt ? `opens at ${verdict.opensAt}` : 'no later opening is scheduled'}`,
    ]);
  return lines;
}
