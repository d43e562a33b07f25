import type { AppContext } from './app-context.ts';
import type { FunctionName } from '../routes/route-table.ts';

/** The functions that keep run history, which open the database. */
const RUN_HISTORY_FUNCTIONS: ReadonlySet<FunctionName> = new Set(['resources', 'internal', 'run-logs']);

/**
 * One function started alone on the checkout's local state: a function keeping run history opens
 * the embedded database now, so that a database held by another process or not installed stops
 * the start with that reason instead of every request answering 503.
 */
export async function openLocalRunHistory(name: FunctionName, context: AppContext): Promise<void> {
  if (!RUN_HISTORY_FUNCTIONS.has(name)) return;
  try {
    await context.runs.openIfEmbedded();
  } catch (error) {
    await context.close();
    throw error;
  }
}
