import { RunNotFoundError } from './run-errors.ts';
import type { RunRecords } from './records/run-records.ts';
import type { Run } from './run.ts';
import type { AuthorisationDecision, AuthorisationResolver } from '../../authz/authorisation-decision.ts';

/**
 * The `runWorkspace` resolver: a route on a run by id (`{project}`, `{run}`) is authorised on the
 * run's Workspace, read first; the run is handed to the handler. An unknown run is authorised
 * without a name, then answered 404 `RunNotFound`; a caller refused who may not read the run is
 * answered as for an unknown run (issue 44, item 9).
 */
export function runWorkspaceResolver(records: () => Promise<RunRecords>): AuthorisationResolver {
  return async (request) => {
    try {
      const run = await (await records()).getRun(request.params.project!, request.params.run!, request.deadline);
      // Whoever may read the run sees its Workspace anyway: a refusal may name it to them.
      return {
        name: run.workspace,
        resolved: run,
        readableAs: { verb: 'get', resource: 'workspaces', subresource: 'runs' },
      };
    } catch (error) {
      if (error instanceof RunNotFoundError) return { notFound: error };
      throw error;
    }
  };
}

/** The run the `runWorkspace` resolver read and the chain authorised the request on. */
export function authorisedRun(request: { authorisation: AuthorisationDecision }): Run {
  return request.authorisation.resolved as Run;
}

/**
 * The Project, and the Workspace when the route names one, whose runs the chain authorised the request
 * on: what a run handler reads and writes, so the database sees exactly what was authorised.
 */
export function authorisedRunScope(request: { authorisation: AuthorisationDecision }): {
  project: string;
  workspace: string | undefined;
} {
  const { namespace, name } = request.authorisation.resource;
  if (namespace === undefined) throw new Error('runs are authorised in a Project');
  return { project: namespace, workspace: name };
}

/** The authorised Project and Workspace of a route that names one. */
export function authorisedWorkspace(request: { authorisation: AuthorisationDecision }): {
  project: string;
  workspace: string;
} {
  const { project, workspace } = authorisedRunScope(request);
  if (workspace === undefined) throw new Error('the route was not authorised on a Workspace');
  return { project, workspace };
}
