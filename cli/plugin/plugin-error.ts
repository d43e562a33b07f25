// What ends a command early: a message already worded for the terminal and the exit code it stands for.
import { EXIT_CODES, type ExitReason } from './exit-codes.ts';

/** An error the entry prints as it is (no stack) and exits with its reason's code. */
export class PluginError extends Error {
  readonly exitCode: number;
  /** The server's reason (`ApplyNeedsPlan`), when the server refused: a command may add its own hint. */
  readonly serverReason: string | undefined;

  constructor(message: string, reason: ExitReason, serverReason?: string) {
    super(message);
    this.name = 'PluginError';
    this.exitCode = EXIT_CODES[reason];
    this.serverReason = serverReason;
  }
}
