// `kubectl platform projects windows PROJECT`: the Project's freeze and its approval windows (issue 45 items 3 and
// 5), each with whether it is open now (until when) or when it next opens, evaluated by the rules the server
// judges with (shared/contract/rules/approval-windows.ts), on this machine's clock. `-o json|yaml` prints
// `spec.approvalPolicy` with the states beside it.
import { type ApprovalWindow, windowState, windowStateText } from '../../shared/contract/rules/approval-windows.ts';
import { timeGatesOf } from '../../shared/domain/approvals/time-gates.ts';
import type { PlatformObject } from '../../shared/contract/kinds/platform-object.ts';
import { rolloutGroupVersion } from '../plugin/platform-api-group.ts';
import { printObject } from '../plugin/printed-objects.ts';
import { formatTable } from '../plugin/table.ts';
import type { PluginCommand } from './plugin-command.ts';

export const projectsWindows: PluginCommand = {
  words: ['projects', 'windows'],
  arguments: ['PROJECT'],
  summary: "Show a Project's freeze and approval windows: which is open now, and when the next opens",
  flags: [],
  outputs: ['json', 'yaml'],
  examples: ['kubectl platform projects windows team-a'],
  async run(context) {
    const connection = context.connection();
    const { group, version } = await rolloutGroupVersion(connection);
    const name = context.line.positionals[0]!;
    const project = (await connection.call('GET', `/apis/${group}/${version}/projects/${encodeURIComponent(name)}`))
      .body as PlatformObject;
    const policy = timeGatesOf(project);
    const now = new Date();
    const states = (policy.windows ?? []).map((window) => ({ window, state: windowState(window, now) }));
    if (context.output === 'json' || context.output === 'yaml') {
      const shown = {
        project: name,
        at: now.toISOString(),
        freeze: policy.freeze ?? null,
        windows: states.map(({ window, state }) => ({ ...window, state })),
      };
      context.stdout(printObject(shown, context.output));
      return 0;
    }
    context.stdout(`${'Freeze:'.padEnd(17)}${freezeLine(policy.freeze)}\n`);
    if (states.length === 0) {
      context.stdout(`No approval windows in project ${name}: promotions and applies are not held by time.\n`);
      return 0;
    }
    context.stdout('\n');
    context.stdout(
      formatTable(
        ['WINDOW', 'KIND', 'APPLIES TO', 'STATE'],
        states.map(({ window, state }) => [window.name, window.kind, appliesTo(window), windowStateText(state)]),
      ),
    );
    return 0;
  },
};

function freezeLine(freeze: ReturnType<typeof timeGatesOf>['freeze']): string {
  if (freeze?.active !== true) return 'none';
  return `frozen${freeze.since ? ` since ${freeze.since}` : ''}${freeze.reason ? `: ${freeze.reason}` : ''}`;
}

function appliesTo(window: ApprovalWindow): string {
  const parts = [
    window.appliesTo?.rollouts?.length ? `rollouts: ${window.appliesTo.rollouts.join(',')}` : '',
    window.appliesTo?.applies?.length ? `applies: ${window.appliesTo.applies.join(',')}` : '',
  ].filter(Boolean);
  return parts.length > 0 ? parts.join('; ') : '<none>';
}
