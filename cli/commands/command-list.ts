// Every command of the plugin, in the order --help lists them.
import type { PluginCommand } from './plugin-command.ts';
import { notificationsDeliveries } from './notifications-deliveries.ts';
import { projectsWindows } from './projects-windows.ts';
import { rolloutsApprove } from './rollouts-approve.ts';
import { rolloutsGet } from './rollouts-get.ts';
import { rolloutsWithdraw } from './rollouts-withdraw.ts';
import { runsApprove } from './runs-approve.ts';
import { runsCancel } from './runs-cancel.ts';
import { runsGet } from './runs-get.ts';
import { runsList } from './runs-list.ts';
import { runsLogs } from './runs-logs.ts';
import { runsStart } from './runs-start.ts';
import { runsWithdraw } from './runs-withdraw.ts';
import { tokensCreate } from './tokens-create.ts';
import { tokensList } from './tokens-list.ts';
import { tokensRevoke } from './tokens-revoke.ts';

export const COMMANDS: readonly PluginCommand[] = [
  runsList,
  runsGet,
  runsStart,
  runsLogs,
  runsCancel,
  runsApprove,
  runsWithdraw,
  rolloutsGet,
  rolloutsApprove,
  rolloutsWithdraw,
  notificationsDeliveries,
  tokensCreate,
  tokensList,
  tokensRevoke,
  projectsWindows,
];
