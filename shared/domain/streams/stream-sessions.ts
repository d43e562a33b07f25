import { decodeJwt } from 'jose';
import type { AdminTokenAuthenticator } from '../../auth/admin-token.ts';
import type { Principal } from '../../auth/principal.ts';
import type { AdminAccountSettings } from '../../base/config/admin-account-settings.ts';
import type { AdminSettingsSource } from '../../base/config/admin-settings-source.ts';
import { ApiError } from '../../base/http/api-error.ts';
import { STREAM_END_REASONS, apiError, retryAfter, type StreamEndReason } from '../../base/http/error-catalogue.ts';
import type { SharedStreamSlots } from './shared-stream-slots.ts';
import type { StreamKind } from '../../base/metrics/metrics.ts';

/** Why a stream's credential ended: `reason` is machine-readable, `message` for people. */
export interface CredentialEnd {
  reason: StreamEndReason;
  message: string;
}

/** One open stream's hold on its principal's allowance, ended when its credential ends. */
export interface StreamSession {
  /** Called once, when the credential that opened the stream ends (expiry, disabled admin, rotated key). */
  onCredentialEnd(listener: (end: CredentialEnd) => void): void;
  /** Frees the slot; idempotent. */
  release(): void;
}

/** What a principal over its allowance is told: which streams are capped, by which setting, with which reason. */
export interface StreamLimit {
  kind: StreamKind;
  max: number;
  /** e.g. `run-log streams`. */
  streams: string;
  /** The environment variable that sets `max`. */
  setting: string;
  reason: 'TooManyStreams' | 'TooManyWatches';
}

export interface StreamSessionOptions {
  limit: StreamLimit;
  adminSettings: AdminSettingsSource;
  adminTokens: AdminTokenAuthenticator;
  /** Told of each stream opened; what it returns is called once when that stream is released (the open-streams gauge). */
  opened?: () => () => void;
  /**
   * The count every instance keeps in the database (issue 36): with it, `limit.max` holds for a
   * principal across every instance, not per process. Without a database, per process only.
   */
  shared?: SharedStreamSlots;
}

/** How long a client over its stream allowance is asked to wait before trying again. */
const RETRY_AFTER_SECONDS = 5;
// setTimeout takes at most a signed 32-bit delay; later expiries are re-armed on the way.
const MAX_TIMER_MS = 2 ** 31 - 1;

const TOKEN_EXPIRED: CredentialEnd = {
  reason: 'TokenExpired',
  message: 'the token this stream was opened with has expired',
};

/**
 * One timer per expiry instant for the sessions of a StreamSessions, not one per session: the
 * streams one token opened (a browser's, a dashboard's) all end at its `exp` (issue 25).
 */
class ExpiryTimers {
  readonly #byInstant = new Map<number, { sessions: Set<Session>; timer: NodeJS.Timeout | undefined }>();

  add(session: Session, expiresAt: number): void {
    let group = this.#byInstant.get(expiresAt);
    if (group === undefined) {
      group = { sessions: new Set(), timer: undefined };
      this.#byInstant.set(expiresAt, group);
      this.#arm(expiresAt, group);
    }
    group.sessions.add(session);
  }

  remove(session: Session, expiresAt: number): void {
    const group = this.#byInstant.get(expiresAt);
    if (group === undefined || !group.sessions.delete(session) || group.sessions.size > 0) return;
    clearTimeout(group.timer);
    this.#byInstant.delete(expiresAt);
  }

  #arm(expiresAt: number, group: { sessions: Set<Session>; timer: NodeJS.Timeout | undefined }): void {
    const delay = expiresAt - Date.now();
    if (delay <= 0) {
      this.#byInstant.delete(expiresAt);
      // After the session that is being added is in the group.
      queueMicrotask(() => {
        for (const session of group.sessions) session.end(TOKEN_EXPIRED);
      });
      return;
    }
    group.timer = setTimeout(() => this.#arm(expiresAt, group), Math.min(delay, MAX_TIMER_MS));
    group.timer.unref();
  }
}

class Session implements StreamSession {
  readonly principal: Principal;
  readonly token: string;
  /** The admin signing key the token was verified with, to tell a rotation from other rejections. */
  readonly signingKeyId: string | undefined;
  #listener: ((end: CredentialEnd) => void) | undefined;
  #ended: CredentialEnd | undefined;
  #released = false;
  readonly #onRelease: (session: Session) => void;
  readonly #expiries: ExpiryTimers;

  constructor(
    principal: Principal,
    token: string,
    signingKeyId: string | undefined,
    onRelease: (session: Session) => void,
    expiries: ExpiryTimers,
  ) {
    this.principal = principal;
    this.token = token;
    this.signingKeyId = signingKeyId;
    this.#onRelease = onRelease;
    this.#expiries = expiries;
    if (principal.expiresAt !== undefined) expiries.add(this, principal.expiresAt);
  }

  onCredentialEnd(listener: (end: CredentialEnd) => void): void {
    this.#listener = listener;
    if (this.#ended) listener(this.#ended);
  }

  end(end: CredentialEnd): void {
    if (this.#ended || this.#released) return;
    this.#ended = end;
    this.#stopExpiry();
    this.#listener?.(end);
  }

  release(): void {
    if (this.#released) return;
    this.#released = true;
    this.#stopExpiry();
    this.#onRelease(this);
  }

  #stopExpiry(): void {
    if (this.principal.expiresAt !== undefined) this.#expiries.remove(this, this.principal.expiresAt);
  }
}

/**
 * The streams of one sort (run-log streams, resource watches) open in this process, by principal: at most `limit.max` each
 * (429 with Retry-After beyond it, so one user or one leaked token cannot hold every socket), counted
 * across every instance when `shared` is given (the process's own count stays, as the fallback), and
 * each told when the credential that opened it ends: at its `exp`, and for admin tokens as soon
 * as the admin settings in force no longer accept it (account disabled, signing key rotated, TTL
 * lowered).
 */
export class StreamSessions {
  readonly #options: StreamSessionOptions;
  readonly #openByPrincipal = new Map<string, number>();
  readonly #adminSessions = new Set<Session>();
  readonly #expiries = new ExpiryTimers();
  #stopFollowingAdminSettings: (() => void) | undefined;

  constructor(options: StreamSessionOptions) {
    this.#options = options;
  }

  /**
   * Takes one of the principal's stream slots: in this process, and with a shared count in every
   * instance's; throws ApiError 429 when all are taken.
   */
  async open(principal: Principal, token: string): Promise<StreamSession> {
    const key = `${principal.type}:${principal.name}`;
    const { max } = this.#options.limit;
    // Held here before the shared count is asked, so that opens racing on this instance count each other.
    if (!this.#hold(key, max)) throw this.#refusal();
    let slot: string | undefined;
    if (this.#options.shared) {
      slot = await this.#options.shared.take(key, max);
      if (slot === undefined) {
        this.#letGo(key);
        throw this.#refusal();
      }
    }
    const closedForMetrics = this.#options.opened?.();
    const isAdmin = principal.type === 'admin';
    const session = new Session(
      principal,
      token,
      isAdmin ? this.#options.adminSettings.current().signingKeyId : undefined,
      (closed) => {
        this.#letGo(key);
        if (slot !== undefined) this.#options.shared!.release(slot);
        if (isAdmin) this.#forgetAdminSession(closed);
        closedForMetrics?.();
      },
      this.#expiries,
    );
    if (isAdmin) this.#rememberAdminSession(session);
    return session;
  }

  #hold(key: string, max: number): boolean {
    const open = this.#openByPrincipal.get(key) ?? 0;
    if (open >= max) return false;
    this.#openByPrincipal.set(key, open + 1);
    return true;
  }

  #letGo(key: string): void {
    const remaining = (this.#openByPrincipal.get(key) ?? 1) - 1;
    if (remaining > 0) this.#openByPrincipal.set(key, remaining);
    else this.#openByPrincipal.delete(key);
  }

  #refusal(): ApiError {
    const { max, streams, setting, reason } = this.#options.limit;
    const where = this.#options.shared ? 'across every instance' : 'in this instance';
    return apiError(
      reason,
      `at most ${max} ${streams} may be open at once per principal ${where} (${setting}); close one or retry later`,
      retryAfter(RETRY_AFTER_SECONDS),
    );
  }

  /** Streams open now for a principal (for tests and diagnostics). */
  openStreams(principal: Principal): number {
    return this.#openByPrincipal.get(`${principal.type}:${principal.name}`) ?? 0;
  }

  #rememberAdminSession(session: Session): void {
    this.#adminSessions.add(session);
    this.#stopFollowingAdminSettings ??= this.#options.adminSettings.onChange((settings) =>
      this.#recheckAdminSessions(settings),
    );
  }

  #forgetAdminSession(session: Session): void {
    this.#adminSessions.delete(session);
    if (this.#adminSessions.size > 0) return;
    this.#stopFollowingAdminSettings?.();
    this.#stopFollowingAdminSettings = undefined;
  }

  // The admin token authenticator is the one judge of whether a token still holds under the new settings.
  #recheckAdminSessions(settings: AdminAccountSettings): void {
    for (const session of this.#adminSessions) {
      if (!settings.enabled) {
        session.end({ reason: 'AdminAccountDisabled', message: 'the admin account was disabled' });
        continue;
      }
      this.#options.adminTokens.authenticate(session.token, decodeJwt(session.token)).catch((error: unknown) => {
        if (settings.signingKeyId !== session.signingKeyId)
          session.end({ reason: 'SigningKeyRotated', message: 'the admin token signing key was rotated' });
        else
          session.end({
            reason: streamEndReason(error),
            message: error instanceof Error ? error.message : 'the token is no longer accepted',
          });
      });
    }
  }
}

/**
 * Frees the session's slot when the caller goes away, also when it already has (while the slot was
 * being taken): a stream whose body is never read never runs the code that would free it.
 */
export function releaseWhenCallerLeaves(session: StreamSession, signal: AbortSignal | undefined): void {
  if (signal?.aborted) session.release();
  else signal?.addEventListener('abort', () => session.release(), { once: true });
}

/** The reason a refused admin token gives its stream: the refusal's own when the catalogue lists it for streams. */
function streamEndReason(error: unknown): StreamEndReason {
  return error instanceof ApiError && Object.hasOwn(STREAM_END_REASONS, error.reason)
    ? (error.reason as StreamEndReason)
    : 'InvalidToken';
}
