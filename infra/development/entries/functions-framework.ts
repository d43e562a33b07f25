// The functions-framework entry for local development: the package's `main` (knative/functions-framework.ts)
// with local development's cluster and database handed over, for one function run alone on the checkout:
//   npx functions-framework --source=infra/development/entries/functions-framework.ts --target=<function> [--port=<port>]
// Without KUBECONFIG it uses the built-in emulator over the local state folder, without DATABASE_URL
// the embedded PostgreSQL beside it (LOCAL_DATA_DIR, `.data/` by default).
import { registerFrameworkTarget } from '../../../knative/functions-framework-target.ts';
import { settingsOrExit } from '../../../knative/node-http/start-up.ts';
import { developmentServices } from '../development-services.ts';
import { loadDevelopmentSettings } from '../local/local-settings.ts';

const local = settingsOrExit(process.env, loadDevelopmentSettings);
await registerFrameworkTarget(developmentServices(local.dataDir));
