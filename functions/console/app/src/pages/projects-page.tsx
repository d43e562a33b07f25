import { useAllowed } from '../access.ts';
import type { Api } from '../api.ts';
import { apiGroup, listKind } from '../platform-api.ts';
import { href } from '../router.ts';
import { useLoaded } from '../use-loaded.ts';
import { LoadedView, PageNotice, PageTitle } from './common.tsx';

export function ProjectsPage({ api }: { api: Api }) {
  const projects = useLoaded(
    () => listKind<{ displayName?: string; description?: string }>(api, 'projects'),
    'projects',
  );
  const group = useLoaded(() => apiGroup(api), 'group');
  // Projects are cluster-scoped: creating one is a cluster-wide permission.
  const mayCreate = useAllowed(
    api,
    group.data ? { verb: 'create', group: group.data, resource: 'projects' } : undefined,
  );
  return (
    <>
      <PageTitle>Projects</PageTitle>
      <PageNotice />
      {mayCreate && (
        <p>
          <a class="button" href={href('new', 'projects')}>
            New Project
          </a>
        </p>
      )}
      <LoadedView loaded={projects}>
        {(list) =>
          list.items.length === 0 ? (
            <p>No Projects you may see.</p>
          ) : (
            <ul class="cards">
              {list.items.map((project) => (
                <li key={project.metadata.name}>
                  <a href={href('projects', project.metadata.name)}>
                    {project.spec?.displayName ?? project.metadata.name}
                  </a>
                  <span class="muted"> {project.metadata.name}</span>
                  {project.spec?.description && <p>{project.spec.description}</p>}
                </li>
              ))}
            </ul>
          )
        }
      </LoadedView>
    </>
  );
}
