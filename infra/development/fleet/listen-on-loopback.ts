// Preloaded into every fleet replica (`node --import`): the functions-framework CLI listens on
// `--port` on every interface and has no flag for the address, but a replica must be reachable
// from this machine's gateway only. It trusts the one X-Forwarded-For hop the gateway writes; a
// client reaching it from elsewhere would choose its own address and skip the login throttle
// (issue 20). A server told only a port listens on 127.0.0.1; one given an address keeps it.
import { Server } from 'node:net';

const LOOPBACK = '127.0.0.1';

/** The arguments of `Server#listen` with the loopback address added where they name a port alone. */
function onLoopback(args: unknown[]): unknown[] {
  const [first, second] = args;
  if (typeof first === 'object' && first !== null && 'port' in first && !('host' in first))
    return [{ ...first, host: LOOPBACK }, ...args.slice(1)];
  const port = typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first));
  if (port && typeof second !== 'string') return [first, LOOPBACK, ...args.slice(1)];
  return args;
}

const listen = Server.prototype.listen;
Server.prototype.listen = function listenOnLoopback(this: Server, ...args: unknown[]) {
  return (listen as (...args: unknown[]) => Server).apply(this, onLoopback(args));
} as Server['listen'];
