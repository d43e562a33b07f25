import { LogMasker, unmaskedNames, type MaskedChunk, type SensitiveValue } from './log-masking.ts';

/** How many chunk boundaries of an attempt keep their carry: enough for a controller's retries. */
const CARRIES_KEPT = 16;
/** How many run attempts one process keeps maskers for (finished runs are dropped at once). */
const ATTEMPTS_KEPT = 256;

/** The masking of one run attempt: its sensitive values (in memory only) and its chunks' carries. */
export class AttemptMasking {
  readonly leaseId: string;
  readonly unmaskedSensitiveValues: string[];
  readonly #masker: LogMasker;
  /** By the number of the line it precedes: a resent chunk is masked with the carry it had before. */
  readonly #carries = new Map<number, string>();

  constructor(leaseId: string, values: readonly SensitiveValue[]) {
    this.leaseId = leaseId;
    this.#masker = new LogMasker(values);
    this.unmaskedSensitiveValues = unmaskedNames(values);
  }

  /** Masks the chunk of lines `firstSeq`, … (line 1 starts the log: nothing comes before it). */
  mask(firstSeq: number, lines: readonly string[]): MaskedChunk {
    return this.#masker.mask(lines, firstSeq === 1 ? '' : this.#carries.get(firstSeq));
  }

  /** Once a chunk is stored: what the chunk starting at `nextSeq` continues from. */
  stored(nextSeq: number, carry: string): void {
    this.#carries.delete(nextSeq);
    this.#carries.set(nextSeq, carry);
    for (const oldest of this.#carries.keys()) {
      if (this.#carries.size <= CARRIES_KEPT) break;
      this.#carries.delete(oldest);
    }
  }
}

/**
 * This process's maskers, one per run attempt it claimed or appended to. Never persisted: another
 * replica, or this one after a restart, resolves the values again (docs/run-history.md, "Masking").
 */
export class RunLogMasks {
  readonly #attempts = new Map<string, AttemptMasking>();

  /** Starts masking the attempt of `runId` held by `leaseId` with `values`, replacing an earlier attempt's. */
  start(runId: string, leaseId: string, values: readonly SensitiveValue[]): AttemptMasking {
    const attempt = new AttemptMasking(leaseId, values);
    this.#attempts.delete(runId);
    this.#attempts.set(runId, attempt);
    for (const oldest of this.#attempts.keys()) {
      if (this.#attempts.size <= ATTEMPTS_KEPT) break;
      this.#attempts.delete(oldest);
    }
    return attempt;
  }

  /** The masking of the attempt `leaseId` holds, if this process has it. */
  held(runId: string, leaseId: string): AttemptMasking | undefined {
    const attempt = this.#attempts.get(runId);
    return attempt?.leaseId === leaseId ? attempt : undefined;
  }

  /** The run ended: its values leave memory. */
  forget(runId: string): void {
    this.#attempts.delete(runId);
  }
}
