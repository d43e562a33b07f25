// `npm start`'s development controller (issue 44 item 3): without it every run stayed Pending
// locally. The reference controller, authenticated as a ServiceAccount of the built-in emulator
// with the chart's controller role, claims runs through the gateway's internal routes and writes a
// simulated OpenTofu log (simulated-run.ts); beside it the Rollouts are moved through their stages
// (rollout-progression.ts). Everything goes through the server's routes, as the real ones do.
// Development only: the product never imports it (npm run lint:imports).
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from '../../../shared/base/logging/logger.ts';
import { API_VERSION } from '../../../shared/contract/kinds/platform-kinds.ts';
import { developmentControllerToken } from './controller-identity.ts';
import { ControllerClient, ReferenceController, type ControllerEvent } from './reference-controller.ts';
import { nextRolloutChange, progressRollouts } from './rollout-progression.ts';
import { simulateRun } from './simulated-run.ts';
import { fetchTrusting } from './trusting-fetch.ts';

export interface DevelopmentControllerOptions {
  /** The gateway's URL, as a client reaches it. */
  url: string;
  /** The gateway's certificate under LOCAL_HTTPS (self-signed): trusted for these calls only. */
  certificate?: string;
  /** The built-in emulator's admin access: to create the ServiceAccount and mint its token. */
  kubeConfig: KubeConfig;
  apiGroup: string;
  logger: Logger;
}

/** Pauses that make a run and a Rollout visibly move for someone watching, and still end within seconds. */
const LOG_CHUNK_PAUSE_MS = 400;
const ROLLOUT_STEP_MS = 1_000;
/** Between claims that found no run: each is a line of the request log, so not too often. */
const IDLE_DELAY_MS = 2_000;
const LEASE_SECONDS = 30;

export interface DevelopmentController {
  /** Lets the runs in hand finish, then stops claiming and moving Rollouts. */
  stop(): Promise<void>;
}

export async function startDevelopmentController(
  options: DevelopmentControllerOptions,
): Promise<DevelopmentController> {
  const { url, apiGroup, logger } = options;
  const token = await developmentControllerToken(options.kubeConfig, apiGroup);
  const fetchImpl = options.certificate ? fetchTrusting(options.certificate) : fetch;
  const runs = new ReferenceController({
    client: new ControllerClient(url, token, fetchImpl),
    leaseSeconds: LEASE_SECONDS,
    concurrency: 1,
    idleDelayMs: IDLE_DELAY_MS,
    execute: (run, work) => simulateRun(run, work, LOG_CHUNK_PAUSE_MS),
    onEvent: eventLogger(logger),
  });
  runs.start();
  // Stopping ends the open watch at once rather than at its timeout.
  const stopped = new AbortController();
  const call = async (method: string, path: string, body?: unknown, contentType?: string) => {
    const response = await fetchImpl(`${url}${path}`, {
      method,
      signal: stopped.signal,
      headers: { authorization: `Bearer ${token}`, ...(contentType ? { 'content-type': contentType } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`);
    return response;
  };
  const apiBase = `/apis/${apiGroup}/${API_VERSION}`;
  const rollouts = (async () => {
    let lastFailure = '';
    while (!stopped.signal.aborted) {
      try {
        const { moved, resourceVersion } = await progressRollouts(call, apiBase, () => new Date().toISOString());
        lastFailure = '';
        if (moved.length > 0) {
          logger.debug('development controller: rollouts moved', { rollouts: moved });
          await new Promise((resolve) => setTimeout(resolve, ROLLOUT_STEP_MS));
        } else await nextRolloutChange(call, apiBase, resourceVersion);
      } catch (error) {
        if (stopped.signal.aborted) break;
        // Said once per cause, not every second while the cluster or database is away.
        const reason = error instanceof Error ? error.message : String(error);
        if (reason !== lastFailure) logger.warn('development controller: rollouts not moved', { reason });
        lastFailure = reason;
        await new Promise((resolve) => setTimeout(resolve, ROLLOUT_STEP_MS));
      }
    }
  })();
  logger.info(
    'development controller: claiming runs and moving Rollouts (simulated; LOCAL_CONTROLLER=false turns it off)',
    { serviceAccount: 'platform-system/platform-dev-controller' },
  );
  return {
    async stop() {
      stopped.abort();
      await Promise.all([runs.stop(), rollouts]);
    },
  };
}

/** The controller's events in the log: a claim that fails is said once per cause, not at every idle turn. */
function eventLogger(logger: Logger): (event: ControllerEvent) => void {
  let lastClaimFailure = '';
  return (event) => {
    if (event.event === 'claim-failed') {
      if (event.reason !== lastClaimFailure)
        logger.warn('development controller: claim failed', { reason: event.reason });
      lastClaimFailure = event.reason;
      return;
    }
    lastClaimFailure = '';
    if (event.event === 'abandoned')
      logger.warn('development controller: run abandoned', { runId: event.runId, reason: event.reason });
    else if (event.event !== 'appended') logger.info(`development controller: run ${event.event}`, { ...event });
  };
}
