/** The page a run list asks for, from its checked query (`limit` defaults to 50 in the route's schema); an empty `continue` is the first page. */
export function pageOf(query: { limit: number; continue?: string }): { limit: number; continue?: string } {
  return { limit: query.limit, ...(query.continue ? { continue: query.continue } : {}) };
}
