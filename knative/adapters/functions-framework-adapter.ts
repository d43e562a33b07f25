import type { Domain } from 'node:domain';
import type { Request, Response } from '@google-cloud/functions-framework';
import type { CoreHandler } from '../../shared/server/runtime/core-handler.ts';
import type { ApiRequest, ApiResponse } from '../../shared/base/http/api-request.ts';
import { ApiError } from '../../shared/base/http/api-error.ts';
import { OVER_LIMIT, toApiRequest, writeApiResponse, type NodeAdapterLimits } from './node-http-adapter.ts';
import { checkRequestTarget, earlyAnswer } from '../../shared/base/http/early-answers.ts';

/**
 * A functions-framework HTTP function serving one core handler. The framework has already
 * buffered the body (as `rawBody`); the limit is enforced again here so the answer is the same
 * as on the container path (413 from the chain, once the caller is known).
 */
export function createFunctionsFrameworkHandler(handler: CoreHandler, limits: NodeAdapterLimits) {
  return (req: Request, res: Response): Promise<void> | undefined => {
    const raw = (req as Request & { rawBody?: Buffer }).rawBody ?? new Uint8Array(0);
    const answer = (response: ApiResponse) => writeApiResponse(res, response);
    let request: ApiRequest;
    try {
      checkRequestTarget(req.url ?? '/');
      request = toApiRequest(req, res, raw.byteLength > limits.maxBodyBytes ? OVER_LIMIT : raw, limits.maxBodyBytes);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return answer(earlyAnswer(error));
    }
    // The framework runs each request in a `domain`, whose async hooks track every promise made
    // under it (several times their normal cost). The core answers every error itself, so it runs
    // outside that domain; the domain stays in force for the framework's own code around it.
    const requestDomain = (process as NodeJS.Process & { domain?: Domain }).domain;
    requestDomain?.exit();
    try {
      const response = handler(request);
      return response instanceof Promise ? response.then(answer) : answer(response);
    } finally {
      requestDomain?.enter();
    }
  };
}
