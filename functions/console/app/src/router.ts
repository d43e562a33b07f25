// Hash routing (issue 24, item 4): the static server needs no knowledge of the app's pages, and the
// OIDC redirect back to `/` (with `?code=`) never collides with a page.
import { useEffect, useState } from 'preact/hooks';

export type Route =
  | { page: 'projects' }
  | { page: 'project'; project: string }
  | { page: 'workspace'; project: string; workspace: string }
  | { page: 'run'; project: string; run: string }
  | { page: 'whoami' }
  | { page: 'sign-in' }
  | { page: 'not-found' };

export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('?', 1)[0]!.split('/').filter(Boolean).map(decodeURIComponent);
  const [first, project, kind, name] = parts;
  if (parts.length === 0 || (first === 'projects' && parts.length === 1)) return { page: 'projects' };
  if (first === 'whoami' && parts.length === 1) return { page: 'whoami' };
  if (first === 'sign-in' && parts.length === 1) return { page: 'sign-in' };
  if (first === 'projects' && project !== undefined) {
    if (parts.length === 2) return { page: 'project', project };
    if (kind === 'workspaces' && name !== undefined && parts.length === 4)
      return { page: 'workspace', project, workspace: name };
    if (kind === 'runs' && name !== undefined && parts.length === 4) return { page: 'run', project, run: name };
  }
  return { page: 'not-found' };
}

/** The link to a page, its path segments encoded. */
export function href(...segments: string[]): string {
  return `#/${segments.map(encodeURIComponent).join('/')}`;
}

export function navigate(hash: string): void {
  if (location.hash === hash) window.dispatchEvent(new HashChangeEvent('hashchange'));
  else location.hash = hash;
}

/** The current hash, re-rendering on change. */
export function useHash(): string {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const update = () => setHash(location.hash);
    window.addEventListener('hashchange', update);
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return hash;
}
