// `npm run fleet [-- --replicas N]`: every function as its own processes behind the local gateway.
import { parseArgs } from 'node:util';
import { ConfigError } from '../../../shared/base/config/config-error.ts';
import { onShutdownSignal, startOrExit } from '../../../knative/node-http/start-up.ts';
import { startFleet } from './fleet.ts';
import { startLocalDevelopment } from '../gateway/local-start-up.ts';

const MAX_REPLICAS = 10;
const { settings, local, logger, host, serveConsole } = await startLocalDevelopment();
const fleet = await startOrExit(logger, () => {
  const { values } = parseArgs({ options: { replicas: { type: 'string', default: '1' } } });
  const replicas = Number(values.replicas);
  if (!Number.isInteger(replicas) || replicas < 1 || replicas > MAX_REPLICAS)
    throw new ConfigError('--replicas', `"${values.replicas}" is not a whole number from 1 to ${MAX_REPLICAS}`);
  // The replicas are handed the environment as given (forwarded, each parses its own).
  return startFleet(settings, process.env, {
    replicas,
    dataDir: local.dataDir,
    https: local.https,
    logger,
    host,
    onReplicaOutput: (replica, text) =>
      process.stdout.write(text.replace(/^(?=.)/gm, `[${replica.name}#${replica.index}] `)),
  });
});
const consoleServer = await serveConsole(fleet.url);
onShutdownSignal(logger, async () => {
  await consoleServer.close();
  await fleet.close();
});
