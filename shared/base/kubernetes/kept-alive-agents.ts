// client-node makes its http(s) agents without keep-alive, so each call to the cluster would open
// a TCP connection of its own, and over TLS do a handshake of its own: more CPU than the request
// the call serves, and a socket left in TIME_WAIT per call. The REST client sends through these
// agents instead, as client-go keeps its connections.
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';

/**
 * An idle connection is closed after this long: under the 60 s idle timeout of common load
 * balancers in front of an API server, so that a call does not race the balancer's close.
 */
const IDLE_MS = 30_000;
/** TCP keep-alive probes on a kept connection, as client-go sends them. */
const PROBE_MS = 30_000;

const keptAlive = {
  http: new HttpAgent({ keepAlive: true, keepAliveMsecs: PROBE_MS, timeout: IDLE_MS }),
  // The TLS settings (CA, client certificate, server name, verification) stay on each request:
  // the agent keeps a connection per distinct set of them, so a kept connection is one made with
  // the settings of the call that reuses it.
  https: new HttpsAgent({ keepAlive: true, keepAliveMsecs: PROBE_MS, timeout: IDLE_MS }),
};

/**
 * The agent for a call: a kept-alive one in place of the plain agent client-node made, or
 * client-node's own when it is something else (a proxy's agent for a cluster's `proxy-url`).
 */
export function keptAliveAgent(made: unknown, protocol: string): unknown {
  if (made !== undefined && made?.constructor !== HttpAgent && made?.constructor !== HttpsAgent) return made;
  return protocol === 'https:' ? keptAlive.https : keptAlive.http;
}
