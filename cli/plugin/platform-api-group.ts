// Which API group the server serves the platform's kinds in (API_GROUP, `platform.dev` unless the
// operator chose another): found as kubectl finds kinds, in the server's aggregated discovery.
import type { PlatformConnection } from './platform-connection.ts';
import { PluginError } from './plugin-error.ts';

const AGGREGATED_DISCOVERY = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json';

interface DiscoveredGroup {
  metadata?: { name?: string };
  versions?: { version: string; resources?: { resource: string; responseKind?: { kind?: string } }[] }[];
}

/** `<group>/<version>` of the Rollout kind, e.g. `platform.dev/v1alpha1`. */
export async function rolloutGroupVersion(connection: PlatformConnection): Promise<{ group: string; version: string }> {
  const { body } = await connection.call('GET', '/apis', undefined, { accept: AGGREGATED_DISCOVERY });
  for (const item of (body as { items?: DiscoveredGroup[] }).items ?? []) {
    const version = item.versions?.find((candidate) =>
      candidate.resources?.some(
        (resource) => resource.resource === 'rollouts' && resource.responseKind?.kind === 'Rollout',
      ),
    );
    if (item.metadata?.name && version) return { group: item.metadata.name, version: version.version };
  }
  throw new PluginError(
    `error: the server at ${connection.server} serves no Rollout kind: is the context's server the Platform API?`,
    'server',
  );
}
