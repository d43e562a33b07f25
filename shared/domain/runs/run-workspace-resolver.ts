import { RunNotFoundError } from './run-errors.ts';
import type { RunRecords } from './records/run-records.ts';
import type { Run } from './run.ts';
import type { AuthorizationDecision, AuthorizationResolver } from '../../authz/authorization-decision.ts';

/**
 * The `runWorkspace` resolver: a route on a run by id (`{project}`, `{run}`) is authorized on the
 * run's Workspace, read first; the run is handed to the handler. An unknown run is authorized
 * without a name, then answered 404 `RunNotFound`; a caller refused who may not read the run is
 * answered as for an unknown run (issue 44, item 9).
 */
export function runWorkspaceResolver(records: () => Promise<RunRecords>): AuthorizationResolver {
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

/** The run the `runWorkspace` resolver read and the chain authorized the request on. */
export function authorizedRun(request: { authorization: AuthorizationDecision }): Run {
  return request.authorization.resolved as Run;
}

/**
 * The Project, and the Workspace when the route names one, whose runs the chain authorized the request
 * on: what a run handler reads and writes, so the database sees exactly what was authorized.
 */
export function authorizedRunScope(request: { authorization: AuthorizationDecision }): {
  project: string;
  workspace: string | undefined;
} {
  const { namespace, name } = request.authorization.resource;
  if (namespace === undefined) throw new Error('runs are authorized in a Project');
  return { project: namespace, workspace: name };
}

/** The authorized Project and Workspace of a route that names one. */
export function authorizedWorkspace(request: { authorization: AuthorizationDecision }): {
  project: string;
  workspace: string;
} {
  const { project, workspace } = authorizedRunScope(request);
  if (workspace === undefined) throw new Error('the route was not authorized on a Workspace');
  return { project, workspace };
}
