import { useProjectPermissions } from '../access.ts';
import type { Api } from '../api.ts';
import { VARIABLE_SET } from '../kinds.ts';
import type { KubeObject, Variable } from '../platform-api.ts';
import { useObject } from '../use-object.ts';
import { Breadcrumbs, Facts, LoadedView, PageNotice, PageTitle } from './common.tsx';
import { ObjectActions } from './object-actions.tsx';
import { VariablesTable } from './project-page.tsx';

/** A VariableSet: its variables (a sensitive one shown as hidden, with where it is kept), Edit and Delete. */
export function VariableSetPage({ api, project, variableSet }: { api: Api; project: string; variableSet: string }) {
  const permissions = useProjectPermissions(api, project);
  const loaded = useObject<KubeObject<{ description?: string; variables?: Variable[] }>>(
    api,
    VARIABLE_SET,
    project,
    variableSet,
  );
  return (
    <>
      <Breadcrumbs project={project} current={variableSet} />
      <PageTitle>VariableSet {variableSet}</PageTitle>
      <PageNotice />
      <LoadedView loaded={loaded}>
        {({ group, object: found }) => (
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
