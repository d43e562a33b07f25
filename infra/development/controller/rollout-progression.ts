// The development controller's rollout side: moves each Rollout's stages one step at a time, as a
// rollout controller would (Pending → Planning → Applying → Applied, stage after stage), stopping
// at a stage whose approval is required and not granted (AwaitingApproval) and going on once it is.
// No run is started (the chart's controller role may not start runs): the stages are simulated. It
// reads and writes only through the server's routes: the Rollouts listed, their status patched.

import { stageNeedsApproval } from '../../../shared/contract/rules/rollout-stage.ts';

/** The fields of a Rollout the progression reads (docs/resources.md, "Rollout"). */
export interface ProgressedRollout {
  metadata: { name: string; namespace: string; generation?: number };
  spec: {
    stages: Array<{
      workspace: string;
      requireApproval?: boolean;
      approval?: { required?: boolean; distinctFromAuthor?: boolean };
      approved?: boolean;
    }>;
  };
  status?: {
    phase?: string;
    currentStage?: number;
    startedAt?: string;
    finishedAt?: string;
    stages?: Array<{ workspace: string; phase?: string }>;
  };
}

/** The status fields the progression writes (a merge patch of `/status`; the server keeps its approval records). */
export interface ProgressionStatus {
  observedGeneration?: number;
  phase: 'Progressing' | 'AwaitingApproval' | 'Succeeded' | 'Failed';
  currentStage: number;
  startedAt: string;
  finishedAt?: string;
  stages: Array<{ workspace: string; phase: string }>;
}

/** A stage's next phase on one step; the same phase when it waits (for an approval) or is done. */
function nextStagePhase(phase: string, waitsForApproval: boolean): string {
  switch (phase) {
    case 'Pending':
      return 'Planning';
    case 'Planning':
      return waitsForApproval ? 'AwaitingApproval' : 'Applying';
    case 'AwaitingApproval':
      return waitsForApproval ? 'AwaitingApproval' : 'Applying';
    case 'Applying':
      return 'Applied';
    default:
      return phase;
  }
}

/**
 * The Rollout's status after one step, or undefined when there is nothing to do (finished, failed,
 * or waiting for an approval). `now` is an ISO time.
 */
export function nextRolloutStatus(rollout: ProgressedRollout, now: string): ProgressionStatus | undefined {
  const recorded = new Map((rollout.status?.stages ?? []).map((stage) => [stage.workspace, stage.phase]));
  const stages = rollout.spec.stages.map((stage) => ({
    workspace: stage.workspace,
    phase: recorded.get(stage.workspace) ?? 'Pending',
  }));
  const startedAt = rollout.status?.startedAt ?? now;
  const base = { observedGeneration: rollout.metadata.generation, startedAt, stages };
  const current = stages.findIndex((stage) => stage.phase !== 'Applied');
  if (current === -1) {
    if (rollout.status?.phase === 'Succeeded') return undefined;
    return { ...base, phase: 'Succeeded', currentStage: stages.length - 1, finishedAt: now };
  }
  const stage = stages[current]!;
  if (stage.phase === 'Failed') return undefined;
  const spec = rollout.spec.stages[current]!;
  const next = nextStagePhase(stage.phase, stageNeedsApproval(spec) && !spec.approved);
  if (next === stage.phase) {
    // Waiting for an approval: written once, so the Rollout says so.
    if (rollout.status?.phase === 'AwaitingApproval') return undefined;
    return { ...base, phase: 'AwaitingApproval', currentStage: current };
  }
  stages[current] = { workspace: stage.workspace, phase: next };
  return { ...base, phase: next === 'AwaitingApproval' ? 'AwaitingApproval' : 'Progressing', currentStage: current };
}

type Call = (method: string, path: string, body?: unknown, contentType?: string) => Promise<Response>;

/**
 * Lists every Rollout and patches the status of each that moves: the names moved, and the list's
 * `resourceVersion` to watch from when none did.
 */
export async function progressRollouts(
  call: Call,
  apiBase: string,
  now: () => string,
): Promise<{ moved: string[]; resourceVersion: string }> {
  const list = (await (await call('GET', `${apiBase}/rollouts`)).json()) as {
    metadata: { resourceVersion: string };
    items: ProgressedRollout[];
  };
  const moved: string[] = [];
  for (const rollout of list.items) {
    const status = nextRolloutStatus(rollout, now());
    if (!status) continue;
    const { namespace, name } = rollout.metadata;
    await (
      await call(
        'PATCH',
        `${apiBase}/namespaces/${namespace}/rollouts/${name}/status`,
        { status },
        'application/merge-patch+json',
      )
    ).body?.cancel();
    moved.push(`${namespace}/${name}`);
  }
  return { moved, resourceVersion: list.metadata.resourceVersion };
}

/**
 * Resolves at the first change to any Rollout after `resourceVersion` (a created, edited or approved
 * one), or when the watch ends (`timeoutSeconds`): an idle controller waits on one open watch instead
 * of listing every second.
 */
export async function nextRolloutChange(call: Call, apiBase: string, resourceVersion: string): Promise<void> {
  const query = new URLSearchParams({ watch: 'true', resourceVersion, timeoutSeconds: '300' });
  const response = await call('GET', `${apiBase}/rollouts?${query}`);
  const reader = response.body?.getReader();
  if (!reader) return;
  await reader.read();
  await reader.cancel();
}
