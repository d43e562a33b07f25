import { useState } from 'preact/hooks';
import { type ProjectPermissions, useAllowed, useProjectPermissions } from '../access.ts';
import { type Api, ApiError } from '../api.ts';
import { type KindInfo, PROJECT, ROLLOUT, VARIABLE_SET, WORKSPACE, objectHref, objectPath } from '../kinds.ts';
import { apiGroup, type KubeObject, listKind, type Variable } from '../platform-api.ts';
import { href } from '../router.ts';
import { type Loaded, useLoaded } from '../use-loaded.ts';
import { ApproveStage, type Rollout, stagesAwaitingApproval } from './approvals.tsx';
import { type ApprovalPolicySpec, ApprovalWindows } from './approval-windows.tsx';
import { Breadcrumbs, DataTable, Facts, ListSection, PageNotice, PageTitle } from './common.tsx';
import { DeleteObject } from './delete-object.tsx';
import { ProjectNotifications } from './notification-page.tsx';

/**
 * A Project: its facts, and its Workspaces, Rollouts, VariableSets and Notifications (its namespace has
 * the Project's name), with the stages waiting for an approval first. Each control is shown only where the user's
 * rules allow it: one rules review for the namespace, and reviews by name for the Project itself
 * (cluster-scoped, so a namespace's Roles grant nothing on it).
 */
export function ProjectPage({ api, project }: { api: Api; project: string }) {
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const permissions = useProjectPermissions(api, project);
  const group = useLoaded(() => apiGroup(api), 'group');
  const rollouts = useLoaded(() => listKind<Rollout['spec']>(api, 'rollouts', project), `rollouts/${project}`);
  return (
    <>
      <Breadcrumbs current={project} />
      <PageTitle>Project {project}</PageTitle>
      <PageNotice text={notice} />
      {group.data && <ProjectFacts api={api} group={group.data} project={project} />}
      <AwaitingApproval
        api={api}
        project={project}
        rollouts={rollouts as Loaded<{ items: Rollout[] }>}
        permissions={permissions}
        onApproved={(text) => {
          setNotice(text);
          rollouts.reload();
        }}
      />
      <Workspaces api={api} project={project} permissions={permissions} />
      <Rollouts project={project} rollouts={rollouts as Loaded<{ items: Rollout[] }>} permissions={permissions} />
      <VariableSets api={api} project={project} permissions={permissions} />
      <TokensLink project={project} permissions={permissions} />
      <ProjectNotifications api={api} project={project} />
    </>
  );
}

/** The Project's tokens for automation (issue 46), for those whose rules let them list them. */
function TokensLink({ project, permissions }: { project: string; permissions: ProjectPermissions }) {
  if (!permissions.may('list', 'tokens')) return null;
  return (
    <section aria-labelledby="tokens-heading">
      <h2 id="tokens-heading">Tokens</h2>
      <p>
        <a href={href('projects', project, 'tokens')}>Tokens for automation</a>: create, list with their last use,
        revoke.
      </p>
    </section>
  );
}

/** The Project's own fields and its Edit and Delete, for those who may read it (a namespace's Role does not reach it). */
function ProjectFacts({ api, group, project }: { api: Api; group: string; project: string }) {
  type Spec = { displayName?: string; description?: string; contact?: string; approvalPolicy?: ApprovalPolicySpec };
  const object = useLoaded(
    () =>
      api.get<KubeObject<Spec>>(objectPath(group, PROJECT, undefined, project)).catch((error: unknown) => {
        if (error instanceof ApiError && error.status === 403) return null;
        throw error;
      }),
    `project/${project}`,
  );
  const mayEdit = useAllowed(api, { verb: 'patch', group, resource: 'projects', name: project });
  const mayDelete = useAllowed(api, { verb: 'delete', group, resource: 'projects', name: project });
  const spec = object.data?.spec;
  return (
    <>
      {object.error && (
        <p class="error" role="alert">
          {object.error.message}
        </p>
      )}
      {spec && (
        <Facts
          facts={[
            ['Display name', spec.displayName],
            ['Description', spec.description],
            ['Contact', spec.contact],
          ]}
        />
      )}
      {spec && <ApprovalWindows policy={spec.approvalPolicy} now={Date.now()} />}
      {object.data && (mayEdit || mayDelete) && (
        <div class="actions">
          {mayEdit && (
            <a class="button" href={href('projects', project, 'edit')}>
              Edit Project
            </a>
          )}
          {mayDelete && (
            <DeleteObject api={api} group={group} kind={PROJECT} object={object.data} then={href('projects')} />
          )}
        </div>
      )}
    </>
  );
}

/** "New Workspace" and its kin, where the rules allow `create` of the kind in the namespace. */
function NewObjectLink({
  project,
  kind,
  permissions,
}: {
  project: string;
  kind: KindInfo;
  permissions: ProjectPermissions;
}) {
  if (!permissions.may('create', kind.plural)) return null;
  return (
    <p>
      <a class="button" href={href('projects', project, 'new', kind.plural)}>
        New {kind.kind}
      </a>
    </p>
  );
}

function AwaitingApproval({
  api,
  project,
  rollouts,
  permissions,
  onApproved,
}: {
  api: Api;
  project: string;
  rollouts: Loaded<{ items: Rollout[] }>;
  permissions: ProjectPermissions;
  onApproved: (notice: string) => void;
}) {
  const waiting = (rollouts.data?.items ?? []).flatMap((rollout) =>
    stagesAwaitingApproval(rollout).map((awaiting) => ({ rollout, ...awaiting })),
  );
  if (waiting.length === 0) return null;
  const mayApprove = (rollout: Rollout) => permissions.may('approve', 'rollouts', rollout.metadata.name);
  return (
    <section aria-labelledby="awaiting-heading">
      <h2 id="awaiting-heading">Awaiting approval</h2>
      <DataTable
        columns={['Rollout', 'Revision', 'Stage', waiting.some(({ rollout }) => mayApprove(rollout)) && 'Approve']}
      >
        {waiting.map(({ rollout, stage, index }) => (
          <tr key={`${rollout.metadata.name}/${stage.workspace}`}>
            <td>
              <a href={objectHref(ROLLOUT, project, rollout.metadata.name)}>{rollout.metadata.name}</a>
            </td>
            <td class="wrap">{rollout.spec?.revision}</td>
            <td>
              {index + 1}: {stage.workspace}
            </td>
            {mayApprove(rollout) && (
              <td>
                <ApproveStage
                  api={api}
                  project={project}
                  rollout={rollout}
                  stage={stage}
                  index={index}
                  onApproved={onApproved}
                />
              </td>
            )}
          </tr>
        ))}
      </DataTable>
    </section>
  );
}

function Workspaces({ api, project, permissions }: { api: Api; project: string; permissions: ProjectPermissions }) {
  type Spec = { source?: { repository?: string; path?: string }; tool?: { name?: string; version?: string } };
  const workspaces = useLoaded(() => listKind<Spec>(api, 'workspaces', project), `workspaces/${project}`);
  return (
    <ListSection
      id="workspaces"
      title="Workspaces"
      loaded={workspaces}
      actions={<NewObjectLink project={project} kind={WORKSPACE} permissions={permissions} />}
    >
      {(items) => (
        <DataTable columns={['Name', 'Source', 'Tool']}>
          {items.map((workspace) => (
            <tr key={workspace.metadata.name}>
              <td>
                <a href={objectHref(WORKSPACE, project, workspace.metadata.name)}>{workspace.metadata.name}</a>
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

function Rollouts({
  project,
  rollouts,
  permissions,
}: {
  project: string;
  rollouts: Loaded<{ items: Rollout[] }>;
  permissions: ProjectPermissions;
}) {
  return (
    <ListSection
      id="rollouts"
      title="Rollouts"
      loaded={rollouts}
      actions={<NewObjectLink project={project} kind={ROLLOUT} permissions={permissions} />}
    >
      {(items) => (
        <DataTable columns={['Name', 'Revision', 'Stages', 'Phase']}>
          {items.map((rollout) => (
            <tr key={rollout.metadata.name}>
              <td>
                <a href={objectHref(ROLLOUT, project, rollout.metadata.name)}>{rollout.metadata.name}</a>
              </td>
              <td class="wrap">{rollout.spec?.revision ?? '—'}</td>
              <td class="wrap">{(rollout.spec?.stages ?? []).map((stage) => stage.workspace).join(' → ')}</td>
              <td>{rollout.status?.phase ?? '—'}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </ListSection>
  );
}

/**
 * A sensitive variable's value is never in the VariableSet (the API moves it into a Secret and answers
 * only the reference): the console shows that it is hidden and where it is kept, never a value.
 */
export function shownValue(variable: Variable): string {
  if (variable.valueFrom)
    return `hidden (Secret ${variable.valueFrom.secretKeyRef.name}, key ${variable.valueFrom.secretKeyRef.key})`;
  if (variable.sensitive) return 'hidden';
  return variable.value ?? '';
}

/** A VariableSet's variables as a table; sensitive values hidden. */
export function VariablesTable({ caption, variables }: { caption?: preact.ComponentChildren; variables: Variable[] }) {
  return (
    <DataTable caption={caption} columns={['Variable', 'Category', 'Value']}>
      {variables.map((variable) => (
        <tr key={variable.name}>
          <td>{variable.name}</td>
          <td>{variable.category ?? 'terraform'}</td>
          <td class={variable.valueFrom || variable.sensitive ? 'hidden-value wrap' : 'wrap'}>
            {shownValue(variable)}
          </td>
        </tr>
      ))}
    </DataTable>
  );
}

function VariableSets({ api, project, permissions }: { api: Api; project: string; permissions: ProjectPermissions }) {
  const sets = useLoaded(
    () => listKind<{ description?: string; variables?: Variable[] }>(api, 'variablesets', project),
    `variablesets/${project}`,
  );
  return (
    <ListSection
      id="variablesets"
      title="VariableSets"
      loaded={sets}
      actions={<NewObjectLink project={project} kind={VARIABLE_SET} permissions={permissions} />}
    >
      {(items) =>
        items.map((set) => (
          <VariablesTable
            key={set.metadata.name}
            caption={<a href={objectHref(VARIABLE_SET, project, set.metadata.name)}>{set.metadata.name}</a>}
            variables={set.spec?.variables ?? []}
          />
        ))
      }
    </ListSection>
  );
}
