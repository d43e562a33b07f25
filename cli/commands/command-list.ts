// Every command of the plugin, in the order --help lists them.
import type { PluginCommand } from './plugin-command.ts';
import { notificationsDeliveries } from './notifications-deliveries.ts';
import { rolloutsApprove } from './rollouts-approve.ts';
import { rolloutsGet } from './rollouts-get.ts';
import { runsApprove } from './runs-approve.ts';
import { runsCancel } from './runs-cancel.ts';
import { runsGet } from './runs-get.ts';
import { runsList } from './runs-list.ts';
import { runsLogs } from './runs-logs.ts';
import { runsStart } from './runs-start.ts';

export const COMMANDS: readonly PluginCommand[] = [
  runsList,
  runsGet,
  runsStart,
  runsLogs,
  runsCancel,
  runsApprove,
  rolloutsGet,
  rolloutsApprove,
  notificationsDeliveries,
];
