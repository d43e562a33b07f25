import { MAX_LIST_LIMIT } from './run-store.ts';
import { apiError } from '../http/error-catalogue.ts';

/** The page size of a list when the caller names none. */
export const DEFAULT_PAGE_SIZE = 50;

/** `limit` and `continue` of a run list request; 400 for a limit that is not 1..500. */
export function pageQuery(query: URLSearchParams): { limit: number; continue?: string } {
  const text = query.get('limit');
  const limit = text === null ? DEFAULT_PAGE_SIZE : Number(text);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT) {
    throw apiError('InvalidLimit', `limit must be an integer from 1 to ${MAX_LIST_LIMIT}`);
  }
  const token = query.get('continue');
  return { limit, ...(token ? { continue: token } : {}) };
}
