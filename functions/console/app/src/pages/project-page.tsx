import type { Api } from '../api.ts';
import { listKind, type Variable } from '../platform-api.ts';
import { href } from '../router.ts';
import { useLoaded } from '../use-loaded.ts';
import { DataTable, ListSection, PageTitle } from './common.tsx';

/** A Project's Workspaces, Rollouts and VariableSets (its namespace has the Project's name). */
export function ProjectPage({ api, project }: { api: Api; project: string }) {
  return (
    <>
      <nav aria-label="Breadcrumb" class="crumbs">
        <a href={href('projects')}>Projects</a> / <span aria-current="page">{project}</span>
      </nav>
      <PageTitle>Project {project}</PageTitle>
      <Workspaces api={api} project={project} />
      <Rollouts api={api} project={project} />
      <VariableSets api={api} project={project} />
    </>
  );
}

function Workspaces({ api, project }: { api: Api; project: string }) {
  type Spec = { source?: { repository?: string; path?: string }; tool?: { name?: string; version?: string } };
  const workspaces = useLoaded(() => listKind<Spec>(api, 'workspaces', project), `workspaces/${project}`);
  return (
    <ListSection id="workspaces" title="Workspaces" loaded={workspaces}>
      {(items) => (
        <DataTable columns={['Name', 'Source', 'Tool']}>
          {items.map((workspace) => (
            <tr key={workspace.metadata.name}>
              <td>
                <a href={href('projects', project, 'workspaces', workspace.metadata.name)}>{workspace.metadata.name}</a>
              </td>
              <td class="wrap">
                {workspace.spec?.source?.repository} {workspace.spec?.source?.path}
              </td>
              <td>
                {workspace.spec?.tool?.name} {workspace.spec?.tool?.version}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </ListSection>
  );
}

function Rollouts({ api, project }: { api: Api; project: string }) {
  type Spec = { revision?: string; stages?: { workspace: string }[] };
  const rollouts = useLoaded(() => listKind<Spec>(api, 'rollouts', project), `rollouts/${project}`);
  return (
    <ListSection id="rollouts" title="Rollouts" loaded={rollouts}>
      {(items) => (
        <ul class="cards">
          {items.map((rollout) => (
            <li key={rollout.metadata.name}>
              <strong>{rollout.metadata.name}</strong> revision {rollout.spec?.revision ?? '—'}:{' '}
              {(rollout.spec?.stages ?? []).map((stage) => stage.workspace).join(' → ')}
            </li>
          ))}
        </ul>
      )}
    </ListSection>
  );
}

/**
 * A sensitive variable's value is never in the VariableSet (the API moves it into a Secret and answers
 * only the reference): the console shows that it is hidden and where it is kept, never a value.
 */
function shownValue(variable: Variable): string {
  if (variable.valueFrom)
    return `hidden (Secret ${variable.valueFrom.secretKeyRef.name}, key ${variable.valueFrom.secretKeyRef.key})`;
  if (variable.sensitive) return 'hidden';
  return variable.value ?? '';
}

function VariableSets({ api, project }: { api: Api; project: string }) {
  const sets = useLoaded(
    () => listKind<{ description?: string; variables?: Variable[] }>(api, 'variablesets', project),
    `variablesets/${project}`,
  );
  return (
    <ListSection id="variablesets" title="VariableSets" loaded={sets}>
      {(items) =>
        items.map((set) => (
          <DataTable key={set.metadata.name} caption={set.metadata.name} columns={['Variable', 'Category', 'Value']}>
            {(set.spec?.variables ?? []).map((variable) => (
              <tr key={variable.name}>
                <td>{variable.name}</td>
                <td>{variable.category ?? 'terraform'}</td>
                <td class={variable.valueFrom || variable.sensitive ? 'hidden-value wrap' : 'wrap'}>
                  {shownValue(variable)}
                </td>
              </tr>
            ))}
          </DataTable>
        ))
      }
    </ListSection>
  );
}
