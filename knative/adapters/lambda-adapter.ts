import middy, { type MiddlewareObj } from '@middy/core';
import { isStreamingBody, type ApiRequest, type ApiResponse } from '../../shared/base/http/api-request.ts';
import type { CoreHandler } from '../../shared/server/runtime/core-handler.ts';
import type { NodeAdapterLimits } from './node-http-adapter.ts';
import type { ApiError } from '../../shared/base/http/api-error.ts';
import { checkRequestTarget, earlyAnswer } from '../../shared/base/http/early-answers.ts';

/** The parts of an API Gateway HTTP API (payload format 2.0) event this adapter reads. */
export interface HttpApiEventV2 {
  version?: string;
  rawPath: string;
  rawQueryString?: string;
  headers?: Record<string, string | undefined>;
  cookies?: string[];
  body?: string;
  isBase64Encoded?: boolean;
  requestContext: { http: { method: string; sourceIp?: string } };
}

export interface HttpApiResultV2 {
  statusCode: number;
  headers: Record<string, string>;
  multiValueHeaders?: Record<string, string[]>;
  cookies?: string[];
  body: string;
  isBase64Encoded: boolean;
}

/**
 * An AWS Lambda handler for API Gateway HTTP API v2 events serving one core handler, built with
 * middy as Lambda handlers are: a request target over MAX_REQUEST_URI_BYTES is refused before the
 * event is read (414), and a body over the limit is left undecoded, for the chain to answer 413 once
 * the caller is known. Lambda buffers responses, so a streamed body is collected until it ends.
 */
export function createLambdaHandler(handler: CoreHandler, limits: NodeAdapterLimits) {
  return middy<HttpApiEventV2, HttpApiResultV2>()
    .use(refuseLongTargets())
    .handler(async (event) => toResult(await handler(toApiRequest(event, limits.maxBodyBytes))));
}

/** 414 before the event is read: the early answer ends the invocation without running the core handler. */
function refuseLongTargets(): MiddlewareObj<HttpApiEventV2, HttpApiResultV2> {
  return {
    before: async ({ event }) => {
      try {
        checkRequestTarget(event.rawQueryString ? `${event.rawPath}?${event.rawQueryString}` : event.rawPath);
        return undefined;
      } catch (error) {
        return toResult(earlyAnswer(error as ApiError));
      }
    },
  };
}

function toApiRequest(event: HttpApiEventV2, maxBodyBytes: number): ApiRequest {
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(event.headers ?? {})) headers[name.toLowerCase()] = value;
  if (event.cookies?.length) headers.cookie = event.cookies.join('; ');
  const encoding = event.isBase64Encoded ? 'base64' : 'utf8';
  // Measured before it is decoded: a body over the limit is never copied.
  const overLimit = event.body !== undefined && Buffer.byteLength(event.body, encoding) > maxBodyBytes;
  return {
    method: event.requestContext.http.method.toUpperCase(),
    path: event.rawPath,
    query: new URLSearchParams(event.rawQueryString ?? ''),
    headers,
    body: event.body === undefined || overLimit ? new Uint8Array(0) : Buffer.from(event.body, encoding),
    ...(overLimit ? { bodyOverLimit: maxBodyBytes } : {}),
    remoteAddress: event.requestContext.http.sourceIp ?? '',
  };
}

async function toResult(response: ApiResponse): Promise<HttpApiResultV2> {
  const headers: Record<string, string> = {};
  let cookies: string[] | undefined;
  for (const [name, value] of Object.entries(response.headers)) {
    if (name === 'set-cookie') cookies = Array.isArray(value) ? value : [value];
    else headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  const payload = await collectBody(response.body);
  return {
    statusCode: response.status,
    headers,
    ...(cookies ? { cookies } : {}),
    body: payload.toString('utf8'),
    isBase64Encoded: false,
  };
}

async function collectBody(body: ApiResponse['body']): Promise<Buffer> {
  if (body === undefined) return Buffer.alloc(0);
  if (!isStreamingBody(body)) return Buffer.from(body);
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}
