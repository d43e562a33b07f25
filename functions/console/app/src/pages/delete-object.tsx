// Delete with a confirmation naming the object (issue 40, item 1). The delete carries the
// `resourceVersion` the user saw as a precondition: an object changed since is not deleted unseen.
import { forgetRules } from '../access.ts';
import { type Api, ApiError } from '../api.ts';
import { type KindInfo, objectPath, objectTitle } from '../kinds.ts';
import { leaveNotice } from '../notices.ts';
import type { ObjectMeta } from '../platform-api.ts';
import { navigate } from '../router.ts';
import { ConfirmAction } from './confirm-action.tsx';

export function DeleteObject({
  api,
  group,
  kind,
  object,
  then,
}: {
  api: Api;
  group: string;
  kind: KindInfo;
  object: { metadata: ObjectMeta };
  /** The page to go to once it is deleted. */
  then: string;
}) {
  const { name, namespace, resourceVersion } = object.metadata;
  const title = objectTitle(kind, name);
  const remove = async () => {
    try {
      await api.send('DELETE', objectPath(group, kind, namespace, name), {
        body: {
          kind: 'DeleteOptions',
          apiVersion: 'v1',
          ...(resourceVersion ? { preconditions: { resourceVersion } } : {}),
        },
      });
    } catch (error) {
      if (error instanceof ApiError && error.status === 403 && namespace) forgetRules(namespace);
      if (error instanceof ApiError && error.status === 409)
        throw new Error(`${error.message} Reload the page to see the current version first.`);
      throw error;
    }
    leaveNotice(`Deleted ${title}.`);
    navigate(then);
  };
  return (
    <ConfirmAction
      trigger="Delete"
      triggerLabel={`Delete ${title}`}
      title={`Delete ${title}?`}
      confirm={`Delete ${title}`}
      danger
      action={remove}
    >
      {kind.namespaced ? (
        <p>
          {title} is removed from Project {namespace}. This cannot be undone.
        </p>
      ) : (
        <p>
          {title} is removed with its namespace {name} and everything in it: its Workspaces, Rollouts and VariableSets.
          This cannot be undone.
        </p>
      )}
    </ConfirmAction>
  );
}
