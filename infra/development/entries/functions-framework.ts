// The functions-framework entry for local development: the package's `main` (entries/functions-framework.ts)
// with local development's cluster and database handed over, for one function run alone on the checkout:
//   npx functions-framework --source=infra/development/entries/functions-framework.ts --target=<function> [--port=<port>]
// Without KUBECONFIG it uses the built-in emulator over the local state folder, without DATABASE_URL
// the embedded PostgreSQL beside it (LOCAL_DATA_DIR, `.data/` by default).
import { registerFrameworkTarget } from '../../../entries/functions-framework-target.ts';
import { developmentServicesFor } from '../development-services.ts';

await registerFrameworkTarget(developmentServicesFor);
