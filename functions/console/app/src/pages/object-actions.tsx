import type { ProjectPermissions } from '../access.ts';
import type { Api } from '../api.ts';
import type { KindInfo } from '../kinds.ts';
import type { ObjectMeta } from '../platform-api.ts';
import { href } from '../router.ts';
import { DeleteObject } from './delete-object.tsx';

/** Edit and Delete of an object in a Project, where the namespace's rules allow `patch` and `delete` of it by name. */
export function ObjectActions({
  api,
  group,
  kind,
  object,
  permissions,
}: {
  api: Api;
  group: string;
  kind: KindInfo;
  object: { metadata: ObjectMeta };
  permissions: ProjectPermissions;
}) {
  const { name, namespace = '' } = object.metadata;
  const mayEdit = permissions.may('patch', kind.plural, name);
  const mayDelete = permissions.may('delete', kind.plural, name);
  if (!mayEdit && !mayDelete) return null;
  return (
    <div class="actions">
      {mayEdit && (
        <a class="button" href={href('projects', namespace, kind.plural, name, 'edit')}>
          Edit {kind.kind}
        </a>
      )}
      {mayDelete && (
        <DeleteObject api={api} group={group} kind={kind} object={object} then={href('projects', namespace)} />
      )}
    </div>
  );
}
