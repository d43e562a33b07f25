import { useProjectPermissions } from '../access.ts';
import type { Api } from '../api.ts';
import { objectPath, VARIABLE_SET } from '../kinds.ts';
import { apiGroup, type KubeObject, type Variable } from '../platform-api.ts';
import { href } from '../router.ts';
import { useLoaded } from '../use-loaded.ts';
import { Facts, LoadedView, PageNotice, PageTitle } from './common.tsx';
import { ObjectActions } from './object-actions.tsx';
import { VariablesTable } from './project-page.tsx';

/** A VariableSet: its variables (a sensitive one shown as hidden, with where it is kept), Edit and Delete. */
export function VariableSetPage({ api, project, variableSet }: { api: Api; project: string; variableSet: string }) {
  const permissions = useProjectPermissions(api, project);
  const loaded = useLoaded(async () => {
    const group = await apiGroup(api);
    const found = await api.get<KubeObject<{ description?: string; variables?: Variable[] }>>(
      objectPath(group, VARIABLE_SET, project, variableSet),
    );
    return { group, found };
  }, `variableset/${project}/${variableSet}`);
  return (
    <>
      <nav aria-label="Breadcrumb" class="crumbs">
        <a href={href('projects')}>Projects</a> / <a href={href('projects', project)}>{project}</a> /{' '}
        <span aria-current="page">{variableSet}</span>
      </nav>
      <PageTitle>VariableSet {variableSet}</PageTitle>
      <PageNotice />
      <LoadedView loaded={loaded}>
        {({ group, found }) => (
          <>
            <Facts facts={[['Description', found.spec?.description]]} />
            <ObjectActions api={api} group={group} kind={VARIABLE_SET} object={found} permissions={permissions} />
            <h2>Variables</h2>
            {(found.spec?.variables ?? []).length === 0 ? (
              <p>No variables.</p>
            ) : (
              <VariablesTable variables={found.spec?.variables ?? []} />
            )}
          </>
        )}
      </LoadedView>
    </>
  );
}
