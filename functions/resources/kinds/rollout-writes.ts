import { apiError } from '../../../shared/base/http/error-catalogue.ts';
import type { ClusterObjects, ObjectLocation } from '../../../shared/domain/resources/cluster-objects.ts';
import { ROLLOUT } from '../../../shared/contract/kinds/platform-kinds.ts';
import type { PlatformObject } from '../../../shared/contract/kinds/platform-object.ts';
import { gatingProject } from '../../../shared/domain/approvals/project-gates.ts';
import {
  approvalWarnings,
  judgeStageApprovals,
  judgeWithdrawal,
  stageApprovalGates,
  withStageApproved,
  type JudgedApprovals,
  type StageApprovalGates,
} from '../../../shared/domain/approvals/stage-approval-judge.ts';
import {
  presentedRollout,
  recordedStatus,
  recordsApprovals,
  revisionOf,
  withoutApprovedFlags,
  withStoredApprovalRecords,
  type Recording,
} from '../../../shared/domain/approvals/stage-approvals.ts';
import { approverGroups, approverName } from '../../../shared/domain/approvals/approval-caller.ts';
import { authorizeOverride, type OverrideRequest } from '../../../shared/domain/approvals/time-gate-enforcement.ts';
import { objectForWrite } from './resource-body.ts';
import { JSON_PATCH, patchedObject, recomputedOnConflict, resultAsJsonPatch } from './patch-results.ts';
import {
  plainWrites,
  type ResourceWrites,
  type WriteAnswer,
  type WriteOptions,
  type Writer,
} from './resource-writes.ts';

/** A Rollout's writes, with the approve and withdraw routes' own. */
export interface RolloutWrites extends ResourceWrites {
  /** Approves one stage (by its workspace) for the current revision: the approve route's one status write. */
  approveStage(location: ObjectLocation, stage: string, override?: OverrideRequest): Promise<WriteAnswer>;
  /** Withdraws `approver`'s approval of one stage (the caller's own by default): the withdraw route's one status write. */
  withdrawApproval(location: ObjectLocation, stage: string, approver?: string): Promise<WriteAnswer>;
}

/**
 * A Rollout's writes for one request (issue 37, issue 45, issue 43 item 7; docs/resources.md "Approvals"). Every
 * write is judged on its result against the stored object as clients see it (each stage's `approved` presented
 * from the status), by the approval judge (shared/domain/approvals/). An approval is recorded in one write of the
 * status subresource, which clients never write: the approver's record, and the gate when the records meet the
 * policy. `spec.stages[].approved` is not stored: a write that sets it asks to approve (or, false, to withdraw),
 * the spec is written without it, and the status write that follows records the approval.
 */
export function rolloutWrites(objects: ClusterObjects, writer: Writer): RolloutWrites {
  const plain = plainWrites(objects, ROLLOUT);
  const writerName = approverName(writer.principal);
  const writerGroups = approverGroups(writer.principal);
  const path = (location: ObjectLocation) => objects.platformPath(ROLLOUT, location);
  // The object itself, also for a write through its status subresource.
  const read = async ({ namespace, name }: ObjectLocation) =>
    (await objects.send<PlatformObject>({ method: 'GET', path: path({ namespace, name }) })).body;
  // The approve and withdraw routes are the platform's own: a missing Rollout is their 404 `RolloutNotFound`.
  const rolloutToApprove = async (location: ObjectLocation) => {
    const found = await objects.find<PlatformObject>(path(location));
    if (!found)
      throw apiError('RolloutNotFound', `rollout "${location.name}" not found in project "${location.namespace}"`);
    return found;
  };
  // The Project's approval policy for the Rollout (issue 45): read once for each write, never kept.
  const gatesOf = async ({ namespace, name }: ObjectLocation): Promise<StageApprovalGates> =>
    stageApprovalGates(await gatingProject(objects, namespace!), name!);
  const recordingOf = (revision: string, judged: JudgedApprovals, gates: StageApprovalGates): Recording => ({
    writer: writerName,
    groups: writerGroups,
    at: new Date().toISOString(),
    revision,
    policy: gates.stages,
    ...(judged.override ? { override: judged.override } : {}),
  });
  const presented = (answer: WriteAnswer): WriteAnswer => ({ ...answer, body: presentedRollout(answer.body) });

  /**
   * Records the write's approvals and revision author in the status, in one status write after the spec's, and
   * warns of outlived approvals. A dry run records nothing: it answers the status as it would be recorded.
   */
  const recorded = async (
    answer: WriteAnswer,
    judged: JudgedApprovals,
    gates: StageApprovalGates,
    options: WriteOptions,
  ): Promise<WriteAnswer> => {
    const { changes } = judged;
    const warnings = [...(answer.warnings ?? []), ...approvalWarnings(judged)];
    const revision = revisionOf(answer.body);
    if (!recordsApprovals(changes) || revision === undefined) return presented({ ...answer, warnings });
    const recording = recordingOf(revision, judged, gates);
    if (options.has('dryRun')) {
      const status = recordedStatus(answer.body, changes, recording);
      return presented({ ...answer, body: status ? { ...answer.body, status } : answer.body, warnings });
    }
    const location = { namespace: answer.body.metadata.namespace, name: answer.body.metadata.name };
    const body = await recomputedOnConflict(
      () => read(location),
      (current) => {
        const status = recordedStatus(current, changes, recording);
        const result = status === undefined ? current : { ...current, status };
        return {
          result,
          send: async () =>
            status === undefined
              ? current
              : (
                  await objects.send<PlatformObject>({
                    method: 'PATCH',
                    path: path({ ...location, subresource: 'status' }),
                    body: resultAsJsonPatch(current, result, 'status'),
                    contentType: JSON_PATCH,
                  })
                ).body,
        };
      },
    );
    return presented({ ...answer, body, warnings });
  };

  /**
   * A write computed here from the stored object (a merge or JSON patch, an approval) and sent as its result
   * through `field`'s route (the object's spec, or its status subresource), pinned, recomputed on a conflict.
   */
  const patchResult = <Computed extends { result: PlatformObject }>(
    location: ObjectLocation,
    compute: (current: PlatformObject) => Computed,
    field: 'spec' | 'status',
    options: WriteOptions,
    readCurrent: (location: ObjectLocation) => Promise<PlatformObject> = read,
  ): Promise<{ answer: WriteAnswer; computed: Computed }> =>
    recomputedOnConflict(
      () => readCurrent(location),
      (current) => {
        const computed = compute(current);
        return {
          result: computed.result,
          send: async () => ({
            answer: await (field === 'spec' ? plain.patch : plain.patchStatus)(
              field === 'spec' ? location : { ...location, subresource: 'status' },
              resultAsJsonPatch(current, computed.result, field),
              JSON_PATCH,
              options,
            ),
            computed,
          }),
        };
      },
    );

  /** A spec write's result as judged against the stored object as clients see it, and sent without `approved`. */
  const judgedForSpec = (stored: PlatformObject | undefined, written: PlatformObject, gates: StageApprovalGates) => {
    const judged = judgeStageApprovals(writer, stored && presentedRollout(stored), written, gates);
    return { ...judged, result: withoutApprovedFlags(judged.result) };
  };
  const spec =
    (location: ObjectLocation, patch: unknown, contentType: string, gates: StageApprovalGates) =>
    (current: PlatformObject) =>
      judgedForSpec(
        current,
        objectForWrite(
          patchedObject(presentedRollout(current), patch, contentType, ROLLOUT, location.name!),
          ROLLOUT,
          objects.apiGroup,
          { namespace: location.namespace, name: location.name },
        ),
        gates,
      );

  return {
    ...plain,
    present: presentedRollout,
    async create(location, object, options) {
      const gates = await gatesOf({ ...location, name: object.metadata.name });
      const judged = judgedForSpec(undefined, object, gates);
      return recorded(await plain.create(location, judged.result, options), judged, gates, options);
    },
    async replace(location, object, options) {
      // The replace is pinned by the caller's resourceVersion: judged against another, the cluster refuses it (409).
      const gates = await gatesOf(location);
      const judged = judgedForSpec(await read(location), object, gates);
      return recorded(await plain.replace(location, judged.result, options), judged, gates, options);
    },
    async patch(location, patch, contentType, options) {
      const gates = await gatesOf(location);
      const { answer, computed } = await patchResult(
        location,
        spec(location, patch, contentType, gates),
        'spec',
        options,
      );
      return recorded(answer, computed, gates, options);
    },
    /**
     * The cluster merges an apply (field managers, list keys): its result is asked of it as a dry run, pinned
     * like the apply, and judged. The configuration is applied without `approved`, which it may still set to
     * approve or withdraw: a stage it leaves without `approved` keeps what the status says.
     */
    async apply(location, configuration, options) {
      const dryRun = new URLSearchParams(options);
      dryRun.set('dryRun', 'All');
      const stored = await objects.find<PlatformObject>(path(location));
      const gates = await gatesOf(location);
      const asked = approvedAsked(configuration);
      const judgedDry = (dry: WriteAnswer) =>
        judgedForSpec(stored, withApprovedAsked(dry.body, asked, stored && presentedRollout(stored)), gates);
      let applied = withoutApprovedFlags(configuration);
      let dry = await plain.apply(location, applied, dryRun);
      let judged = judgedDry(dry);
      // The configuration takes the stages as judged: gates as strict as the policy.
      if (judged.tightened.length > 0) {
        applied = { ...applied, spec: { ...applied.spec, stages: judged.result.spec!.stages } };
        dry = await plain.apply(location, applied, dryRun);
        judged = { ...judgedDry(dry), tightened: judged.tightened };
      }
      if (options.has('dryRun')) return recorded(dry, judged, gates, options);
      return recorded(await plain.apply(location, applied, options), judged, gates, options);
    },
    async replaceStatus(location, object, options) {
      // Pinned by the caller's resourceVersion, as a replace of the object.
      const stored = await read(location);
      return presented(await plain.replaceStatus(location, withStoredApprovalRecords(object, stored), options));
    },
    async patchStatus(location, patch, contentType, options) {
      const { answer } = await patchResult(
        location,
        (current) => ({
          result: withStoredApprovalRecords(
            objectForWrite(
              patchedObject(current, patch, contentType, ROLLOUT, location.name!),
              ROLLOUT,
              objects.apiGroup,
              { namespace: location.namespace, name: location.name },
            ),
            current,
          ),
        }),
        'status',
        options,
      );
      return presented(answer);
    },
    async approveStage(location, stage, override) {
      await authorizeOverride(writer, override);
      const gates = { ...(await gatesOf(location)), ...(override ? { override } : {}) };
      // One write of the status: the approver's record and, when the policy is met, the gate (issue 43 item 7).
      const { answer } = await patchResult(
        location,
        (current) => {
          const shown = presentedRollout(current);
          const judged = judgeStageApprovals(writer, shown, withStageApproved(shown, stage, gates), gates);
          const status = recordedStatus(current, judged.changes, recordingOf(revisionOf(current)!, judged, gates));
          return { result: status === undefined ? current : { ...current, status } };
        },
        'status',
        new URLSearchParams(),
        rolloutToApprove,
      );
      return presented(answer);
    },
    async withdrawApproval(location, stage, approver = writerName) {
      const gates = await gatesOf(location);
      const { answer } = await patchResult(
        location,
        (current) => ({ result: { ...current, status: judgeWithdrawal(writer, current, stage, approver, gates) } }),
        'status',
        new URLSearchParams(),
        rolloutToApprove,
      );
      return presented(answer);
    },
  };
}

/** The `approved` a server-side apply configuration sets on each stage it lists with one. */
function approvedAsked(configuration: PlatformObject): Map<string, boolean> {
  const asked = new Map<string, boolean>();
  const stages = configuration.spec?.stages;
  for (const stage of Array.isArray(stages) ? stages : [])
    if (typeof stage?.workspace === 'string' && typeof stage.approved === 'boolean')
      asked.set(stage.workspace, stage.approved);
  return asked;
}

/** The applied result with each stage's `approved` as the configuration asks it, else as the stored object shows it. */
function withApprovedAsked(
  result: PlatformObject,
  asked: ReadonlyMap<string, boolean>,
  shown: PlatformObject | undefined,
): PlatformObject {
  const stages = result.spec?.stages;
  if (!Array.isArray(stages)) return result;
  const shownStages = Array.isArray(shown?.spec?.stages) ? shown.spec.stages : [];
  const shownApproved = (workspace: string) =>
    shownStages.find((stage: { workspace?: unknown }) => stage?.workspace === workspace)?.approved === true;
  return {
    ...result,
    spec: {
      ...result.spec,
      stages: stages.map((stage: { workspace?: unknown }) =>
        typeof stage?.workspace === 'string'
          ? { ...stage, approved: asked.get(stage.workspace) ?? shownApproved(stage.workspace) }
          : stage,
      ),
    },
  };
}
