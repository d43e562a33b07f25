// The stage a command's `--stage` names: its Workspace, or its position (1-based) as `rollouts get`
// numbers it. Shared by `rollouts approve` and `rollouts withdraw`.
import { usageError } from './command-line.ts';
import { rolloutGroupVersion } from './platform-api-group.ts';
import type { PlatformConnection } from './platform-connection.ts';
import type { Rollout } from './rollout-tree.ts';

/** Reads the Rollout `name` in the connection's namespace. */
export async function readRollout(connection: PlatformConnection, name: string): Promise<Rollout> {
  const { group, version } = await rolloutGroupVersion(connection);
  const path = `/apis/${group}/${version}/namespaces/${encodeURIComponent(connection.namespace)}/rollouts/${encodeURIComponent(name)}`;
  return (await connection.call('GET', path)).body as Rollout;
}

/** The Workspace of the stage at position `given` (1-based) of `rollout`; a usage error past its stages. */
function stageAtPosition(rollout: Rollout, name: string, given: string): string {
  const stages = rollout.spec.stages;
  const stage = stages[Number(given) - 1];
  if (!stage) throw usageError(`--stage ${given}: rollout ${name} has stages 1 to ${stages.length}`);
  return stage.workspace;
}

/** The Workspace of the stage `--stage` names (a position costs one read of the Rollout). */
export async function stageFromFlag(connection: PlatformConnection, name: string, given: string): Promise<string> {
  if (!/^\d+$/.test(given)) return given;
  return stageAtPosition(await readRollout(connection, name), name, given);
}
