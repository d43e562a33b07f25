/**
 * The probe paths: Knative, the fleet and the gateway ask them every few seconds, so a passing probe
 * is not news to the request log, and no probe is worth a trace.
 */
export const PROBE_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz']);
