import type { Request, Response } from '@google-cloud/functions-framework';
import type { CoreHandler } from '../runtime/core-handler.ts';
import type { ApiResponse } from '../http/api-request.ts';
import { ApiError } from '../http/api-error.ts';
import { toApiRequest, writeApiResponse, type NodeAdapterLimits } from './node-http.ts';

/**
 * A functions-framework HTTP function serving one core handler. The framework has already
 * buffered the body (as `rawBody`); the limit is enforced again here so the answer is the same
 * as on the container path.
 */
export function createFunctionsFrameworkHandler(handler: CoreHandler, limits: NodeAdapterLimits) {
  return async (req: Request, res: Response): Promise<void> => {
    const raw = (req as Request & { rawBody?: Buffer }).rawBody ?? new Uint8Array(0);
    let response: ApiResponse;
    try {
      if (raw.byteLength > limits.maxBodyBytes) throw new ApiError(413, 'PayloadTooLarge', `request body exceeds ${limits.maxBodyBytes} bytes`);
      response = await handler(toApiRequest(req, res, raw));
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      response = error.toResponse();
    }
    await writeApiResponse(res, response);
  };
}
