// The pages that create and edit an object (issue 40, item 1): `#/new/projects`,
// `#/projects/<p>/new/<kind>`, `#/projects/<p>/edit` and `#/projects/<p>/<kind>/<name>/edit`.
import type { Api } from '../api.ts';
import { ObjectEditor } from '../editing/object-editor.tsx';
import { type KindInfo, objectHref, objectPath, objectTitle } from '../kinds.ts';
import { leaveNotice } from '../notices.ts';
import { apiGroup, type KubeObject, listKind } from '../platform-api.ts';
import { href, navigate } from '../router.ts';
import { useLoaded } from '../use-loaded.ts';
import { LoadedView, PageTitle } from './common.tsx';

/** The names of one kind in a Project, for a field that names one; none when the user may not list them. */
async function namesIn(api: Api, plural: string, project: string): Promise<string[]> {
  try {
    return (await listKind(api, plural, project)).items.map((item) => item.metadata.name);
  } catch {
    return [];
  }
}

export function ObjectEditPage({
  api,
  kind,
  project,
  name,
}: {
  api: Api;
  kind: KindInfo;
  /** The Project whose namespace holds the object; none for a new Project. */
  project: string | undefined;
  /** The object to edit; none to create one. */
  name: string | undefined;
}) {
  const namespace = kind.namespaced ? project : undefined;
  const loaded = useLoaded(async () => {
    const group = await apiGroup(api);
    const [original, workspaces, variableSets] = await Promise.all([
      name !== undefined ? api.get<KubeObject>(objectPath(group, kind, namespace, name)) : undefined,
      kind.kind === 'Rollout' && project ? namesIn(api, 'workspaces', project) : [],
      kind.kind === 'Workspace' && project ? namesIn(api, 'variablesets', project) : [],
    ]);
    return { group, original, workspaces, variableSets };
  }, `edit/${kind.plural}/${project}/${name}`);
  const heading =
    name !== undefined
      ? `Edit ${objectTitle(kind, name)}`
      : kind.namespaced
        ? `New ${kind.kind} in Project ${project}`
        : `New ${kind.kind}`;
  const back =
    name !== undefined
      ? objectHref(kind, project ?? name, name)
      : project
        ? href('projects', project)
        : href('projects');
  return (
    <>
      <nav aria-label="Breadcrumb" class="crumbs">
        <a href={href('projects')}>Projects</a>
        {project && (
          <>
            {' / '}
            <a href={href('projects', project)}>{project}</a>
          </>
        )}
        {name !== undefined && kind.namespaced && (
          <>
            {' / '}
            <a href={back}>{name}</a>
          </>
        )}
        {' / '}
        <span aria-current="page">{name !== undefined ? 'edit' : `new ${kind.kind}`}</span>
      </nav>
      <PageTitle>{heading}</PageTitle>
      <LoadedView loaded={loaded}>
        {(data) => (
          <ObjectEditor
            api={api}
            group={data.group}
            kind={kind}
            project={namespace}
            original={data.original}
            workspaces={data.workspaces}
            variableSets={data.variableSets}
            onSaved={(object, created, warnings) => {
              const title = objectTitle(kind, object.metadata.name);
              const said = warnings.map((warning) => ` Warning: ${warning}`).join('');
              leaveNotice(`${created ? 'Created' : 'Saved'} ${title}.${said}`);
              navigate(objectHref(kind, project ?? object.metadata.name, object.metadata.name));
            }}
          />
        )}
      </LoadedView>
      <p>
        <a href={back}>Cancel and go back</a>
      </p>
    </>
  );
}
