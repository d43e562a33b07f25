// `npm run fleet [-- --replicas N]`: every function as its own processes behind the local gateway.
import { parseArgs } from 'node:util';
import { ConfigError } from '../../../shared/config/config-error.ts';
import { createLogger } from '../../../shared/logging/logger.ts';
import { onShutdownSignal, settingsOrExit, startOrExit } from '../../../shared/server/start-up.ts';
import { startFleet } from './fleet.ts';

const MAX_REPLICAS = 10;
const settings = settingsOrExit(process.env);
const logger = createLogger({ level: settings.server.logLevel });
const fleet = await startOrExit(logger, () => {
  const { values } = parseArgs({ options: { replicas: { type: 'string', default: '1' } } });
  const replicas = Number(values.replicas);
  if (!Number.isInteger(replicas) || replicas < 1 || replicas > MAX_REPLICAS)
    throw new ConfigError('--replicas', `"${values.replicas}" is not a whole number from 1 to ${MAX_REPLICAS}`);
  // The replicas are handed the environment as given (forwarded, each parses its own).
  return startFleet(settings, process.env, {
    replicas,
    dataDir: settings.local.dataDir,
    logger,
    onReplicaOutput: (replica, text) =>
      process.stdout.write(text.replace(/^(?=.)/gm, `[${replica.name}#${replica.index}] `)),
  });
});
onShutdownSignal(logger, () => fleet.close());
