import { stdoutLines, type BatchedLineWriter } from '../../base/logging/batched-line-writer.ts';
import type { AuditEvent } from './audit-event.ts';
import type { AuditSink } from './audit-recorder.ts';

/**
 * One event a line on standard output, as kube-apiserver's log backend writes them
 * (`--audit-log-path=-`): the platform's log pipeline ships them with the request log, and a reader
 * tells them apart by `"apiVersion":"audit.k8s.io/v1"`. Shares the process's batched writer with the
 * logger, so lines keep their order and cost one write per batch.
 */
export class StdoutAuditSink implements AuditSink {
  readonly #lines: BatchedLineWriter;

  constructor(lines: BatchedLineWriter = stdoutLines()) {
    this.#lines = lines;
  }

  write(_event: AuditEvent, json: string): void {
    this.#lines.write(json);
  }

  async close(): Promise<void> {
    this.#lines.flush();
  }
}
