import { PROJECT } from '../../contract/kinds/platform-kinds.ts';
import type { PlatformObject } from '../../contract/kinds/platform-object.ts';
import type { ClusterObjects } from '../resources/cluster-objects.ts';

/**
 * The Project that owns `namespace` (its name is the namespace's), read once per write or apply: every gate it
 * holds (stage and apply policies, windows, freeze, soak times) is judged from this one read, never kept.
 */
export async function gatingProject(
  objects: ClusterObjects,
  namespace: string,
  deadline?: AbortSignal,
): Promise<PlatformObject | undefined> {
  return objects.find<PlatformObject>(objects.platformPath(PROJECT, { name: namespace }), deadline);
}
