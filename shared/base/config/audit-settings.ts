import { ConfigError } from './config-error.ts';
import type { Environment } from './environment.ts';
import { settingReader } from './setting-values.ts';

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

/**
 * AUDIT_RETENTION's range: at least a day (a partition holds one), at most ten years, which keeps
 * the cut-off the retention pass computes a real date (audit-retention.ts checks it again).
 */
export const AUDIT_RETENTION_BOUNDS = { min: '24h', max: '87600h', example: '2160h' } as const;

/** Reads the audit section of the settings; throws ConfigError naming the bad variable. */
export function loadAuditSettings(env: Environment): AuditSettings {
  const setting = settingReader(env);
  return {
    policy: parseAuditPolicy(setting.text('AUDIT_POLICY')),
    mode: parseAuditMode(setting.text('AUDIT_MODE') ?? 'batch'),
    retentionMs: setting.duration('AUDIT_RETENTION', { ...AUDIT_RETENTION_BOUNDS, fallback: `${90 * 24}h` }),
    bufferEvents: setting.integer('AUDIT_BUFFER_EVENTS', { fallback: 10_000, min: 1, max: 1_000_000 }),
    stdout: setting.boolean('AUDIT_STDOUT', { fallback: true }),
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
