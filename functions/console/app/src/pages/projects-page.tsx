import type { Api } from '../api.ts';
import { listKind } from '../platform-api.ts';
import { href } from '../router.ts';
import { useLoaded } from '../use-loaded.ts';
import { LoadedView, PageTitle } from './common.tsx';

export function ProjectsPage({ api }: { api: Api }) {
  const projects = useLoaded(
    () => listKind<{ displayName?: string; description?: string }>(api, 'projects'),
    'projects',
  );
  return (
    <>
      <PageTitle>Projects</PageTitle>
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
