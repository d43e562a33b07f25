import type { AuthorisationResolver } from '../runtime/filters/authorisation.ts';
import { RunNotFoundError } from './run-errors.ts';
import { runStoreHttpError } from './run-http-errors.ts';
import type { RunStore } from './run-store.ts';
import type { Run } from './run.ts';
import type { AuthorisationDecision } from '../authz/authorisation-decision.ts';

/**
 * The `runWorkspace` resolver: a route on a run by id (`{project}`, `{run}`) is authorised on the
 * run's Workspace, read first; the run is handed to the handler. An unknown run is authorised
 * without a name, then answered 404 `RunNotFound`.
 */
export function runWorkspaceResolver(store: () => Promise<RunStore>): AuthorisationResolver {
  return async (request) => {
    try {
      const run = await (await store()).getRun(request.params.project!, request.params.run!);
      return { name: run.workspace, resolved: run };
    } catch (error) {
      if (error instanceof RunNotFoundError) return { notFound: runStoreHttpError(error) };
      throw runStoreHttpError(error);
    }
  };
}

/** The run the `runWorkspace` resolver read and the chain authorised the request on. */
export function authorisedRun(request: { authorisation: AuthorisationDecision }): Run {
  return request.authorisation.resolved as Run;
}
