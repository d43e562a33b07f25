import { ConfigError } from './config-error.ts';
import type { Environment } from './environment.ts';
import { parseDurationSetting } from './setting-values.ts';

/**
 * How much of a request an audit event holds, in kube-apiserver's words: `None` records nothing,
 * `Metadata` who, what, on which object and the outcome, `Request` also the request body (through
 * the presenter that hides sensitive values).
 */
export const AUDIT_LEVELS = ['None', 'Metadata', 'Request'] as const;
export type AuditLevel = (typeof AUDIT_LEVELS)[number];

/**
 * The groups a policy sets a level for. A request belongs to the first that fits: `refusal` (answered
 * 401, 403 or 429), `login`, `controller` (the workspace controller's routes), `watch` (watches and
 * run-log streams), `write` (create, update, patch, delete), `read` (everything else).
 */
export const AUDIT_GROUPS = ['refusal', 'login', 'controller', 'watch', 'write', 'read'] as const;
export type AuditGroup = (typeof AUDIT_GROUPS)[number];

export type AuditPolicy = Readonly<Record<AuditGroup, AuditLevel>>;

/** The default policy: everything at Metadata except reads, which are many and change nothing. */
export const DEFAULT_AUDIT_POLICY: AuditPolicy = {
  refusal: 'Metadata',
  login: 'Metadata',
  controller: 'Metadata',
  watch: 'Metadata',
  write: 'Metadata',
  read: 'None',
};

/**
 * What happens to the database sink while PostgreSQL is down: `batch` keeps a bounded buffer and
 * counts what it drops; `blocking` refuses writes with 503 rather than act unrecorded.
 */
export type AuditMode = 'batch' | 'blocking';

export interface AuditSettings {
  readonly policy: AuditPolicy;
  readonly mode: AuditMode;
  /** AUDIT_RETENTION: how long the database keeps events (default 90 days). */
  readonly retentionMs: number;
  /** AUDIT_BUFFER_EVENTS: how many events wait for the database at most in `batch` mode. */
  readonly bufferEvents: number;
  /** AUDIT_STDOUT=false turns the standard-output sink off (it is on by default). */
  readonly stdout: boolean;
}

const DAY_MS = 86_400_000;

/** Reads the audit section of the settings; throws ConfigError naming the bad variable. */
export function loadAuditSettings(env: Environment): AuditSettings {
  return {
    policy: parseAuditPolicy(env.AUDIT_POLICY?.trim() || undefined),
    mode: parseAuditMode(env.AUDIT_MODE?.trim() || 'batch'),
    retentionMs: parseDurationSetting(
      'AUDIT_RETENTION',
      env.AUDIT_RETENTION?.trim() || `${90 * 24}h`,
      DAY_MS,
      'a duration of at least 24h (e.g. 2160h for 90 days)',
    ),
    bufferEvents: parseBufferEvents(env.AUDIT_BUFFER_EVENTS?.trim() || '10000'),
    stdout: parseStdout(env.AUDIT_STDOUT?.trim() || 'true'),
  };
}

/**
 * `AUDIT_POLICY`: a level for every group (`Metadata`), or `group=Level` pairs separated by commas
 * (`read=Metadata,watch=None`), each over the default; `*=Level` sets every group first.
 */
export function parseAuditPolicy(text: string | undefined): AuditPolicy {
  if (text === undefined) return DEFAULT_AUDIT_POLICY;
  if (isLevel(text)) return Object.fromEntries(AUDIT_GROUPS.map((group) => [group, text])) as AuditPolicy;
  const policy: Record<AuditGroup, AuditLevel> = { ...DEFAULT_AUDIT_POLICY };
  const pairs = text.split(',').map((pair) => pair.trim());
  const everyGroup = pairs.find((pair) => pair.startsWith('*='));
  if (everyGroup) for (const group of AUDIT_GROUPS) policy[group] = levelOf(everyGroup.slice(2));
  for (const pair of pairs) {
    if (pair === everyGroup) continue;
    const [group, level, ...rest] = pair.split('=').map((part) => part.trim());
    if (rest.length > 0 || level === undefined || !AUDIT_GROUPS.includes(group as AuditGroup)) {
      throw new ConfigError(
        'AUDIT_POLICY',
        `"${pair}" is not group=Level with a group of ${AUDIT_GROUPS.join(', ')} or *, and a level of ${AUDIT_LEVELS.join(', ')}`,
      );
    }
    policy[group as AuditGroup] = levelOf(level);
  }
  return policy;
}

function isLevel(text: string): text is AuditLevel {
  return (AUDIT_LEVELS as readonly string[]).includes(text);
}

function levelOf(text: string): AuditLevel {
  if (!isLevel(text)) throw new ConfigError('AUDIT_POLICY', `"${text}" is not a level (${AUDIT_LEVELS.join(', ')})`);
  return text;
}

function parseAuditMode(text: string): AuditMode {
  if (text !== 'batch' && text !== 'blocking')
    throw new ConfigError('AUDIT_MODE', `"${text}" is not batch or blocking`);
  return text;
}

function parseBufferEvents(text: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < 1 || value > 1_000_000) {
    throw new ConfigError('AUDIT_BUFFER_EVENTS', `"${text}" is not a whole number from 1 to 1000000`);
  }
  return value;
}

function parseStdout(text: string): boolean {
  if (text !== 'true' && text !== 'false') throw new ConfigError('AUDIT_STDOUT', `"${text}" is not true or false`);
  return text === 'true';
}
