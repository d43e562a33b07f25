import type { AppContext } from '../../shared/app/app-context.ts';
import { notFound } from '../../shared/http/api-error.ts';
import type { FunctionDefinition } from '../../shared/runtime/function-definition.ts';

/** The run-logs function: a run's log lines as server-sent events. */
export function createRunLogsFunction(_context: AppContext): FunctionDefinition {
  return {
    name: 'run-logs',
    handlers: {
      streamRunLogs: (request) => {
        throw notFound(`run ${request.params.run} not found in project ${request.params.project}`);
      },
    },
  };
}
