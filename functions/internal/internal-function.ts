import type { AppContext } from '../../shared/app/app-context.ts';
import { badRequest, notFound } from '../../shared/http/api-error.ts';
import { jsonResponse } from '../../shared/http/api-request.ts';
import { readJsonObject } from '../../shared/http/json-body.ts';
import { pageQuery } from '../../shared/runs/page-query.ts';
import { UNFINISHED_PHASES, type UnfinishedPhase } from '../../shared/runs/run-store.ts';
import { runStoreHttpError } from '../../shared/runs/run-http-errors.ts';
import type { RunPhase } from '../../shared/runs/run.ts';
import type { FunctionDefinition, RouteHandler } from '../../shared/runtime/function-definition.ts';

const SETTABLE_PHASES: readonly RunPhase[] = ['Running', 'Succeeded', 'Failed', 'Cancelled'];
const MAX_LINES_PER_APPEND = 5_000;
const MAX_MESSAGE_LENGTH = 4_096;

/** The internal function: routes of the workspace controller under /internal/*. */
export function createInternalFunction(context: AppContext): FunctionDefinition {
  // Every call is a non-resource SubjectAccessReview first, so RBAC (nonResourceURLs) decides who may call what.
  const authorised = (handler: RouteHandler): RouteHandler => async (request) => {
    await context.authorizer.authorize(request.principal!, { nonResourcePath: request.path, verb: request.method.toLowerCase() });
    try {
      return await handler(request);
    } catch (error) {
      throw runStoreHttpError(error);
    }
  };

  return {
    name: 'internal',
    handlers: {
      listRunsInPhase: authorised(async (request) => {
        const phase = request.query.get('phase') ?? 'Pending';
        if (!UNFINISHED_PHASES.includes(phase as UnfinishedPhase)) throw badRequest(`phase must be one of ${UNFINISHED_PHASES.join(', ')}`, 'InvalidPhase');
        const store = await context.runs.store();
        return jsonResponse(200, await store.listUnfinishedRuns({ phase: phase as UnfinishedPhase, ...pageQuery(request.query) }));
      }),
      setRunPhase: authorised(async (request) => {
        const body = readJsonObject(request);
        if (!SETTABLE_PHASES.includes(body.phase as RunPhase)) throw badRequest(`phase must be one of ${SETTABLE_PHASES.join(', ')}`, 'InvalidPhase');
        if (body.message !== undefined && (typeof body.message !== 'string' || body.message.length > MAX_MESSAGE_LENGTH)) {
          throw badRequest(`message must be a string of at most ${MAX_MESSAGE_LENGTH} characters`, 'InvalidMessage');
        }
        const store = await context.runs.store();
        return jsonResponse(200, await store.updatePhase(request.params.run!, body.phase as RunPhase, body.message as string | undefined));
      }),
      appendRunLogs: authorised(async (request) => {
        const { lines } = readJsonObject(request);
        if (!Array.isArray(lines) || lines.length > MAX_LINES_PER_APPEND || !lines.every((line) => typeof line === 'string')) {
          throw badRequest(`lines must be an array of at most ${MAX_LINES_PER_APPEND} strings`, 'InvalidLogLines');
        }
        const store = await context.runs.store();
        const appended = await store.appendLogLines(request.params.run!, lines as string[]);
        return jsonResponse(200, { firstSeq: appended[0]?.seq ?? null, lastSeq: appended.at(-1)?.seq ?? null });
      }),
      internal: authorised((request) => {
        throw notFound(`no internal route ${request.method} ${request.path}`);
      }),
    },
    readiness: () => context.runs.checkReady(),
  };
}
