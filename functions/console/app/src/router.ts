// Hash routing (issue 24, item 4): the static server needs no knowledge of the app's pages, and the
// OIDC redirect back to `/` (with `?code=`) never collides with a page. New objects are created at
// `new/...` and edited at `.../edit`: words a name cannot collide with where they stand.
import { useEffect, useState } from 'preact/hooks';

/** The namespaced kinds' plurals, as their pages' paths name them. */
const NAMESPACED = new Set(['workspaces', 'rollouts', 'variablesets']);

export type Route =
  | { page: 'projects' }
  | { page: 'project'; project: string }
  | { page: 'create'; plural: string; project?: string }
  | { page: 'edit'; plural: string; project: string; name: string }
  | { page: 'workspace'; project: string; workspace: string }
  | { page: 'rollout'; project: string; rollout: string }
  | { page: 'variableset'; project: string; variableSet: string }
  | { page: 'notification'; project: string; notification: string }
  | { page: 'run'; project: string; run: string }
  | { page: 'tokens'; project: string }
  | { page: 'audit'; query: string }
  | { page: 'whoami' }
  | { page: 'sign-in' }
  | { page: 'not-found' };

export function parseRoute(hash: string): Route {
  const [path = '', query = ''] = hash.replace(/^#\/?/, '').split('?', 2);
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  const [first, project, kind, name, action] = parts;
  if (parts.length === 0 || (first === 'projects' && parts.length === 1)) return { page: 'projects' };
  if (parts.length === 1) {
    if (first === 'whoami') return { page: 'whoami' };
    if (first === 'sign-in') return { page: 'sign-in' };
    if (first === 'audit') return { page: 'audit', query };
  }
  if (first === 'new' && project === 'projects' && parts.length === 2) return { page: 'create', plural: 'projects' };
  if (first !== 'projects' || project === undefined) return { page: 'not-found' };
  if (parts.length === 2) return { page: 'project', project };
  if (parts.length === 3 && kind === 'edit') return { page: 'edit', plural: 'projects', project, name: project };
  if (parts.length === 3 && kind === 'tokens') return { page: 'tokens', project };
  if (kind === undefined || name === undefined) return { page: 'not-found' };
  if (parts.length === 4) {
    if (kind === 'new' && NAMESPACED.has(name)) return { page: 'create', plural: name, project };
    if (kind === 'workspaces') return { page: 'workspace', project, workspace: name };
    if (kind === 'rollouts') return { page: 'rollout', project, rollout: name };
    if (kind === 'variablesets') return { page: 'variableset', project, variableSet: name };
    if (kind === 'notifications') return { page: 'notification', project, notification: name };
    if (kind === 'runs') return { page: 'run', project, run: name };
  }
  if (parts.length === 5 && action === 'edit' && NAMESPACED.has(kind))
    return { page: 'edit', plural: kind, project, name };
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
