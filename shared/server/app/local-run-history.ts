import type { AppContext } from './app-context.ts';

/**
 * One function keeping run history (its FunctionModule's `runHistory`) started alone on the
 * checkout's local state opens the embedded database now, so that a database held by another
 * process or not installed stops the start with that reason instead of every request answering 503.
 */
export async function openLocalRunHistory(context: AppContext): Promise<void> {
  try {
    await context.runs.openIfEmbedded();
  } catch (error) {
    await context.close();
    throw error;
  }
}
