import type { IncomingMessage, ServerResponse } from 'node:http';
import { writeApiResponse } from '../../../knative/adapters/node-http-adapter.ts';
import { forwardRequest, type ProxySettings } from './forward-request.ts';
import { apiError, bridgeNotConfigured } from '../../../shared/base/http/error-catalogue.ts';
import { earlyAnswer } from '../../../shared/base/http/early-answers.ts';

/**
 * Forwards a /bridge/* request unauthenticated to the identity bridge, streaming both ways and
 * keeping the path. Without an upstream, answers 404.
 */
export function createBridgeProxy(upstreamUrl: string | undefined, settings: ProxySettings) {
  return (incoming: IncomingMessage, outgoing: ServerResponse): void => {
    if (!upstreamUrl) {
      incoming.resume();
      writeApiResponse(outgoing, earlyAnswer(bridgeNotConfigured()));
      return;
    }
    forwardRequest(incoming, outgoing, {
      upstream: new URL(upstreamUrl),
      settings,
      onUpstreamFailed: () =>
        writeApiResponse(outgoing, earlyAnswer(apiError('BridgeUnavailable', 'identity bridge is unreachable'))),
    });
  };
}
