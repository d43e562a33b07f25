import type { Api } from './api.ts';
import { type KindInfo, objectPath } from './kinds.ts';
import { apiGroup, type ObjectMeta } from './platform-api.ts';
import { type Loaded, useLoaded } from './use-loaded.ts';

/** One object of a Project, loaded for its page, with the platform's API group its controls need. */
export function useObject<T extends { metadata: ObjectMeta }>(
  api: Api,
  kind: KindInfo,
  project: string,
  name: string,
): Loaded<{ group: string; object: T }> {
  return useLoaded(async () => {
    const group = await apiGroup(api);
    return { group, object: await api.get<T>(objectPath(group, kind, project, name)) };
  }, `${kind.plural}/${project}/${name}`);
}
