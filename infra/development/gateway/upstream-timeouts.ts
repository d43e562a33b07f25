import type { ClientRequest } from 'node:http';
import type { UpstreamTimeouts } from '../../../shared/base/config/server-config.ts';

/** The replica did not connect or answer in time: the request is abandoned and the replica counted failed. */
export class UpstreamTimeoutError extends Error {}

/**
 * Arms the two deadlines of one forwarded request, as Go's `http.Transport` (DialTimeout,
 * ResponseHeaderTimeout) does: the connect deadline while a new connection is being made, the
 * header deadline once the request is written and the connection up. A missed deadline destroys
 * the request with an UpstreamTimeoutError. Nothing limits the body that follows the headers: an
 * event stream may stay open for hours.
 */
export function enforceUpstreamTimeouts(forwarded: ClientRequest, timeouts: UpstreamTimeouts): void {
  let timer: NodeJS.Timeout | undefined;
  let connected = false;
  let written = false;
  const failAfter = (ms: number, what: string) => {
    clearTimeout(timer);
    timer = setTimeout(() => forwarded.destroy(new UpstreamTimeoutError(`${what} within ${ms} ms`)), ms);
  };
  const awaitHeaders = () => {
    if (connected && written) failAfter(timeouts.responseHeaderMs, 'did not answer');
  };
  forwarded.on('socket', (socket) => {
    // A kept-alive connection is up already; a new one gets the connect deadline.
    if (!socket.connecting) {
      connected = true;
      return awaitHeaders();
    }
    failAfter(timeouts.connectMs, 'did not accept the connection');
    socket.once('connect', () => {
      connected = true;
      clearTimeout(timer);
      awaitHeaders();
    });
  });
  forwarded.on('finish', () => {
    written = true;
    awaitHeaders();
  });
  forwarded.on('response', () => clearTimeout(timer));
  forwarded.on('close', () => clearTimeout(timer));
}
