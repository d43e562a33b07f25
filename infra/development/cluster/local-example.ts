import type { ClusterObjects } from '../../../shared/domain/resources/cluster-objects.ts';
import type { Logger } from '../../../shared/base/logging/logger.ts';
import {
  API_VERSION,
  PROJECT,
  ROLLOUT,
  VARIABLE_SET,
  WORKSPACE,
  type PlatformKind,
} from '../../../shared/contract/kinds/platform-kinds.ts';
import { plainWrites } from '../../../functions/resources/kinds/resource-writes.ts';
import { projectWrites } from '../../../functions/resources/kinds/project-writes.ts';
import { variableSetWrites } from '../../../functions/resources/kinds/variable-set-writes.ts';

const PROJECT_NAME = 'demo';

/**
 * Local mode (the built-in emulator, by `npm run local:setup`): an example Project "demo" with
 * a VariableSet, two Workspaces and a Rollout across them, written the way the API writes them
 * (the Project's namespace, the VariableSet's sensitive value in a Secret). Seeded once: a
 * cluster that has the Project already is left as it is. Needs the CRDs installed.
 */
export async function seedLocalExample(objects: ClusterObjects, logger: Logger): Promise<void> {
  if (await objects.find(objects.platformPath(PROJECT, { name: PROJECT_NAME }))) return;
  const apiVersion = `${objects.apiGroup}/${API_VERSION}`;
  const inDemo = { namespace: PROJECT_NAME };
  const none = new URLSearchParams();
  const object = (kind: PlatformKind, name: string, spec: Record<string, unknown>) => ({
    apiVersion,
    kind: kind.kind,
    metadata: { name, ...(kind.namespaced ? inDemo : {}) },
    spec,
  });

  await projectWrites(objects).create(
    {},
    object(PROJECT, PROJECT_NAME, {
      displayName: 'Demo',
      description: 'Example Project seeded in local mode.',
      contact: 'platform-team',
    }),
    none,
  );
  await variableSetWrites(objects).create(
    inDemo,
    object(VARIABLE_SET, 'common', {
      description: 'Settings shared by the demo Workspaces.',
      variables: [
        { name: 'region', value: 'eu-west-1' },
        { name: 'TF_LOG', category: 'env', value: 'INFO' },
        { name: 'db_password', sensitive: true, value: 'local-example-only' },
      ],
    }),
    none,
  );
  for (const stage of ['staging', 'production']) {
    await plainWrites(objects, WORKSPACE).create(
      inDemo,
      object(WORKSPACE, `network-${stage}`, {
        description: `The ${stage} network.`,
        source: { repository: 'https://github.com/example/infrastructure.git', ref: 'main', path: `network/${stage}` },
        tool: { name: 'opentofu', version: '1.8.2' },
        variableSetRefs: [{ name: 'common' }],
      }),
      none,
    );
  }
  await plainWrites(objects, ROLLOUT).create(
    inDemo,
    object(ROLLOUT, 'network-v2', {
      revision: 'v2.0.0',
      description: 'Promote network v2 from staging to production.',
      stages: [{ workspace: 'network-staging' }, { workspace: 'network-production', approval: { required: true } }],
    }),
    none,
  );
  logger.info(
    `local mode: the built-in Kubernetes emulator is seeded with Project "${PROJECT_NAME}": VariableSet "common", Workspaces "network-staging" and "network-production", Rollout "network-v2"`,
  );
}
