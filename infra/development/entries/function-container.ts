// The container entry for local development: knative/ (what the image runs) with local
// development's cluster and database handed over, for one function run alone on the checkout:
//   FUNCTION_TARGET=<function> PORT=8081 node infra/development/entries/function-container.ts
// Without KUBECONFIG it uses the built-in emulator over the local state folder, without DATABASE_URL
// the embedded PostgreSQL beside it (LOCAL_DATA_DIR, `.data/` by default).
import { runFunctionContainer } from '../../../knative/function-container.ts';
import { functionTarget } from '../../../knative/function-target.ts';
import { FUNCTION_MODULES } from '../../../functions/function-registry.ts';
import { createLogger } from '../../../shared/base/logging/logger.ts';
import { settingsOrExit, startOrExit } from '../../../knative/node-http/start-up.ts';
import { developmentServices } from '../development-services.ts';
import { loadDevelopmentSettings } from '../local/local-settings.ts';

const local = settingsOrExit(process.env, loadDevelopmentSettings);
const settings = settingsOrExit(process.env);
const logger = createLogger({ level: settings.server.logLevel });
const target = await startOrExit(logger, async () => functionTarget(settings.runtime));
await runFunctionContainer(FUNCTION_MODULES[target], developmentServices(local.dataDir));
