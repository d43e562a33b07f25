import { API, TEAM_PROJECT, type Platform } from './platform-fixture.ts';

/** The watch the watch-cap tests open: the Workspaces of the team's Project. */
export const WATCH_PATH = `${API}/namespaces/${TEAM_PROJECT}/workspaces?watch=true`;

/** Opens watches on the platform's gateway, and opens one again until a slot is free (bounded). */
export function watchOpener(platform: () => Platform, boundMs = 20_000) {
  const openWatch = (token: string, query = '') =>
    fetch(`${platform().gateway.url}${WATCH_PATH}${query}`, { headers: { authorization: `Bearer ${token}` } });
  const openOnceFreed = async (token: string): Promise<Response> => {
    const deadline = Date.now() + boundMs;
    for (;;) {
      const response = await openWatch(token);
      if (response.status !== 429 || Date.now() > deadline) return response;
      await response.body?.cancel();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  return { openWatch, openOnceFreed };
}
