import middy from '@middy/core';
import type { MiddlewareObj } from '@middy/core';
import { ApiError, notFound, unauthorized } from '../http/api-error.ts';
import { bridgeNotConfigured } from '../bridge/bridge-proxy.ts';
import { jsonResponse, type ApiRequest, type ApiResponse } from '../http/api-request.ts';
import type { RequestAuthenticator } from '../auth/request-authenticator.ts';
import type { Principal } from '../auth/principal.ts';
import { readBearerToken } from '../auth/bearer-token.ts';
import { RouteMatcher } from '../routes/route-matcher.ts';
import { KubernetesStatusError } from '../resources/kubernetes-status.ts';
import type { RouteDefinition } from '../routes/route-table.ts';
import type { Logger } from '../logging/logger.ts';
import { redactPathAndQuery } from '../logging/redaction.ts';
import type { FunctionDefinition, HandlerRequest } from './function-definition.ts';
import type { AppContext } from '../app/app-context.ts';
import { attachRequestInput } from './request-validation.ts';

/** The runtime-neutral entry point of one function: an ApiRequest in, an ApiResponse out. */
export type CoreHandler = (request: ApiRequest) => Promise<ApiResponse>;

export interface CoreHandlerDependencies {
  routes: RouteDefinition[];
  authenticator: RequestAuthenticator;
  logger: Logger;
}

interface PendingRequest extends ApiRequest {
  route?: RouteDefinition;
  params?: Record<string, string>;
  principal?: HandlerRequest['principal'];
  startedAt: number;
  lookupFailure?: ApiError;
}

const SECURITY_HEADERS = { 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' };

/** A function's core handler over the context of its process. */
export function createContextHandler(definition: FunctionDefinition, context: Pick<AppContext, 'routes' | 'authenticator' | 'logger'>): CoreHandler {
  return createCoreHandler(definition, { routes: context.routes, authenticator: context.authenticator, logger: context.logger });
}

/**
 * Builds a function's core handler with middy: route resolution, authentication (fail closed:
 * an unknown route needs a valid token too, then gets 404), the route's handler, JSON errors
 * and an access log line with secrets redacted.
 */
export function createCoreHandler(definition: FunctionDefinition, dependencies: CoreHandlerDependencies): CoreHandler {
  // Bridge paths reach a function only when no bridge is deployed (the gateway's fallback):
  // they stay unauthenticated and answer 404, exactly as the local gateway does.
  const ownRoutes = dependencies.routes.filter((route) => route.target === definition.name || route.target === 'every-function' || route.target === 'bridge');
  for (const route of ownRoutes) {
    if (route.target === definition.name && !definition.handlers[route.operationId]) {
      throw new Error(`function ${definition.name} has no handler for route ${route.operationId}`);
    }
  }
  const matcher = new RouteMatcher(ownRoutes);
  const builtIn: FunctionDefinition['handlers'] = {
    identityBridge: () => {
      throw bridgeNotConfigured();
    },
    getHealth: () => jsonResponse(200, { status: 'ok' }),
    getReadiness: async () => {
      await definition.readiness?.();
      return jsonResponse(200, { status: 'ready' });
    },
  };
  const logger = dependencies.logger.child({ function: definition.name });

  const routing: MiddlewareObj<PendingRequest, ApiResponse> = {
    before: ({ event }) => {
      const lookup = matcher.lookup(event.method, event.path);
      if (lookup.kind === 'found') {
        event.route = lookup.match.route;
        event.params = lookup.match.params;
      } else if (lookup.kind === 'invalid-parameter') {
        // The route decides how the caller authenticates; the refusal comes once they have, before any authorisation.
        event.route = lookup.route;
        event.lookupFailure = invalidPathParameter(lookup.route, lookup.problem);
      } else if (lookup.kind === 'method-not-allowed') {
        event.lookupFailure = new ApiError(405, 'MethodNotAllowed', `method ${event.method} is not allowed on ${event.path}`, { allow: lookup.allowed.join(', ') });
      } else {
        event.lookupFailure = notFound(`no route for ${event.method} ${event.path}`);
      }
    },
  };

  const authentication: MiddlewareObj<PendingRequest, ApiResponse> = {
    // Synchronous when the token is already verified: every promise costs, most under the
    // functions-framework, whose domains hook each one.
    before: ({ event }) => {
      const auth = event.route?.auth ?? 'bearer';
      if (auth === 'none') {
        event.principal = null;
        if (event.lookupFailure) throw event.lookupFailure;
        return undefined;
      }
      const token = readBearerToken(event, auth === 'bearer-or-query');
      if (token === null) throw unauthorized('a bearer token is required', 'MissingToken');
      const accept = (principal: Principal) => {
        event.principal = principal;
        if (event.lookupFailure) throw event.lookupFailure;
      };
      const cached = dependencies.authenticator.cachedPrincipal(token);
      if (cached) return accept(cached);
      return dependencies.authenticator.authenticate(token).then(accept);
    },
  };

  const errors: MiddlewareObj<PendingRequest, ApiResponse> = {
    onError: (request) => {
      const { error, event } = request;
      if (error instanceof ApiError) {
        request.response = error.toResponse();
        return;
      }
      logger.error('unhandled error', { error, method: event.method, path: event.path });
      request.response = jsonResponse(500, { error: 'internal error', reason: 'InternalError' });
    },
  };

  const finishing: MiddlewareObj<PendingRequest, ApiResponse> = {
    after: (request) => decorate(request.event, request.response!),
    onError: (request) => {
      if (request.response) decorate(request.event, request.response);
    },
  };

  const decorate = (event: PendingRequest, response: ApiResponse) => {
    Object.assign(response.headers, SECURITY_HEADERS);
    if (!logger.isEnabled('info')) return;
    logger.info('request', {
      method: event.method,
      path: redactPathAndQuery(event.path, event.query),
      status: response.status,
      durationMs: Math.round((performance.now() - event.startedAt) * 100) / 100,
      principal: event.principal?.name,
    });
  };

  const handler = middy<PendingRequest, ApiResponse>()
    .use([finishing, errors, routing, authentication])
    .handler((event) => {
      const route = event.route!;
      attachRequestInput(event);
      const routeHandler = definition.handlers[route.operationId] ?? builtIn[route.operationId]!;
      return routeHandler(event as HandlerRequest);
    });

  return (request) => {
    // Extended in place, not copied: a copy would also evaluate the adapter's lazy `signal`.
    const event = request as PendingRequest;
    event.startedAt = performance.now();
    return handler(event, {} as never);
  };
}

/** 400 for a path parameter that is not a valid name: a Kubernetes `Status` on resource routes, as kube-apiserver answers. */
function invalidPathParameter(route: RouteDefinition, problem: string): ApiError {
  const message = `path parameter invalid: ${problem}`;
  return route.statusErrors ? new KubernetesStatusError(400, 'BadRequest', message) : new ApiError(400, 'InvalidPathParameter', message);
}
