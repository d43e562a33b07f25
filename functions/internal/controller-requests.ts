import type { ApiRequest } from '../../shared/http/api-request.ts';
import { readJsonObject } from '../../shared/http/json-body.ts';
import type { ClaimFilter, FinalControllerPhase } from '../../shared/runs/run-leases.ts';
import { apiError } from '../../shared/http/error-catalogue.ts';

/** Lease lengths a controller may ask for, in seconds; it renews well before the end (a third is usual). */
export const LEASE_SECONDS = { default: 60, min: 1, max: 600 } as const;
export const MAX_LINES_PER_APPEND = 5_000;
const MAX_MESSAGE_LENGTH = 4_096;
const MAX_NAME_LENGTH = 253;
const CONTROLLER_FINAL_PHASES: readonly FinalControllerPhase[] = ['Succeeded', 'Failed', 'Cancelled'];

/** The body of a claim, `{"project"?, "workspace"?, "leaseSeconds"?}`; an empty body claims anything. */
export function parseClaim(request: ApiRequest): { filter: ClaimFilter; leaseMs: number } {
  const body = request.body.length === 0 ? {} : readJsonObject(request);
  onlyFields(body, ['project', 'workspace', 'leaseSeconds']);
  const filter: ClaimFilter = {};
  for (const field of ['project', 'workspace'] as const) {
    const value = body[field];
    if (value === undefined) continue;
    if (typeof value !== 'string' || value === '' || value.length > MAX_NAME_LENGTH) throw apiError('InvalidClaim', `${field} must be a name`);
    filter[field] = value;
  }
  if (filter.workspace !== undefined && filter.project === undefined) throw apiError('InvalidClaim', 'a workspace is named within its project: give project too');
  return { filter, leaseMs: leaseMs(body) };
}

/** `{"leaseId", "leaseSeconds"?}` of a renewal. */
export function parseRenewal(request: ApiRequest): { leaseId: string; leaseMs: number } {
  const body = readJsonObject(request);
  onlyFields(body, ['leaseId', 'leaseSeconds']);
  return { leaseId: leaseId(body.leaseId), leaseMs: leaseMs(body) };
}

/** `{"leaseId", "firstSeq", "lines"}` of a log append. */
export function parseLogChunk(request: ApiRequest): { leaseId: string; firstSeq: number; lines: string[] } {
  const body = readJsonObject(request);
  onlyFields(body, ['leaseId', 'firstSeq', 'lines']);
  const { firstSeq, lines } = body;
  if (!Number.isSafeInteger(firstSeq) || (firstSeq as number) < 1) throw apiError('InvalidLogLines', 'firstSeq must be the number of the chunk\'s first line (from 1)');
  if (!Array.isArray(lines) || lines.length === 0 || lines.length > MAX_LINES_PER_APPEND || !lines.every((line) => typeof line === 'string')) {
    throw apiError('InvalidLogLines', `lines must be an array of 1 to ${MAX_LINES_PER_APPEND} strings`);
  }
  return { leaseId: leaseId(body.leaseId), firstSeq: firstSeq as number, lines: lines as string[] };
}

/** `{"leaseId", "phase", "message"?}` of the controller's final phase change. */
export function parseFinish(request: ApiRequest): { leaseId: string; phase: FinalControllerPhase; message?: string } {
  const body = readJsonObject(request);
  onlyFields(body, ['leaseId', 'phase', 'message']);
  if (!CONTROLLER_FINAL_PHASES.includes(body.phase as FinalControllerPhase)) throw apiError('InvalidPhase', `phase must be one of ${CONTROLLER_FINAL_PHASES.join(', ')}`);
  if (body.message !== undefined && (typeof body.message !== 'string' || body.message.length > MAX_MESSAGE_LENGTH)) {
    throw apiError('InvalidMessage', `message must be a string of at most ${MAX_MESSAGE_LENGTH} characters`);
  }
  return { leaseId: leaseId(body.leaseId), phase: body.phase as FinalControllerPhase, ...(body.message !== undefined ? { message: body.message as string } : {}) };
}

/** The `Run-Lease` header: reading a run's variables takes its current lease. */
export function leaseHeader(request: ApiRequest): string {
  return leaseId(request.headers['run-lease']);
}

function leaseId(value: unknown): string {
  if (typeof value !== 'string' || value === '') throw apiError('InvalidLease', 'leaseId is required: the id of the lease from the claim');
  return value;
}

function leaseMs(body: Record<string, unknown>): number {
  const seconds = body.leaseSeconds ?? LEASE_SECONDS.default;
  if (!Number.isInteger(seconds) || (seconds as number) < LEASE_SECONDS.min || (seconds as number) > LEASE_SECONDS.max) {
    throw apiError('InvalidLease', `leaseSeconds must be an integer from ${LEASE_SECONDS.min} to ${LEASE_SECONDS.max}`);
  }
  return (seconds as number) * 1000;
}

function onlyFields(body: Record<string, unknown>, known: readonly string[]): void {
  const unknown = Object.keys(body).filter((key) => !known.includes(key));
  if (unknown.length > 0) throw apiError('BadRequest', `unknown field(s): ${unknown.join(', ')}`);
}
