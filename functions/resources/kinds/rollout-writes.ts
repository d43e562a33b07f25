import { apiError } from '../../../shared/base/http/error-catalogue.ts';
import type { ClusterObjects, ObjectLocation } from '../../../shared/domain/resources/cluster-objects.ts';
import { ROLLOUT } from '../../../shared/contract/kinds/platform-kinds.ts';
import type { PlatformObject } from '../../../shared/contract/kinds/platform-object.ts';
import { gatingProject } from '../../../shared/domain/approvals/project-gates.ts';
import {
  approvalWarnings,
  judgeStageApprovals,
  stageApprovalGates,
  withStageApproved,
  type JudgedApprovals,
  type StageApprovalGates,
} from '../../../shared/domain/approvals/stage-approval-judge.ts';
import {
  recordedStatus,
  recordsApprovals,
  revisionOf,
  withStoredApprovalRecords,
} from '../../../shared/domain/approvals/stage-approvals.ts';
import { approverName } from '../../../shared/domain/approvals/approval-caller.ts';
import { authoriseOverride, type OverrideRequest } from '../../../shared/domain/approvals/time-gate-enforcement.ts';
import { objectForWrite } from './resource-body.ts';
import { JSON_PATCH, patchedObject, recomputedOnConflict, resultAsJsonPatch } from './patch-results.ts';
import {
  plainWrites,
  type ResourceWrites,
  type WriteAnswer,
  type WriteOptions,
  type Writer,
} from './resource-writes.ts';

/** A Rollout's writes, with the approve route's own. */
export interface RolloutWrites extends ResourceWrites {
  /** Approves one stage (by its workspace) for the current revision: the dedicated route's write. */
  approveStage(location: ObjectLocation, stage: string, override?: OverrideRequest): Promise<WriteAnswer>;
}

/**
 * A Rollout's writes for one request (issue 37, docs/resources.md "Approvals"). Every write is judged on its
 * result against the stored object, whatever its shape: a result that grants a stage's approval (or loosens a
 * stage's gate) needs `approve` on the Rollout, which the chain decided with the write's own verb (403 naming it
 * otherwise); under four eyes the approver may not be the revision's author (409 `ApproverIsAuthor`), the admin
 * included. A result that changes `spec.revision` withdraws the approvals given for the revision before.
 * What is sent is the judged result, pinned to the resourceVersion it was judged against; the server then
 * records who approved and who authored the revision in `status`, which clients never write.
 */
export function rolloutWrites(objects: ClusterObjects, writer: Writer): RolloutWrites {
  const plain = plainWrites(objects, ROLLOUT);
  const writerName = approverName(writer.principal);
  const path = (location: ObjectLocation) => objects.platformPath(ROLLOUT, location);
  // The object itself, also for a write through its status subresource.
  const read = async ({ namespace, name }: ObjectLocation) =>
    (await objects.send<PlatformObject>({ method: 'GET', path: path({ namespace, name }) })).body;
  // The approve route is the platform's own: a missing Rollout is its 404 `RolloutNotFound`, not the cluster's.
  const rolloutToApprove = async (location: ObjectLocation) => {
    const found = await objects.find<PlatformObject>(path(location));
    if (!found)
      throw apiError('RolloutNotFound', `rollout "${location.name}" not found in project "${location.namespace}"`);
    return found;
  };

  /** Records the write's approvals and revision author in the status (never for a dry run), and warns of outlived approvals. */
  const recorded = async (
    answer: WriteAnswer,
    judged: JudgedApprovals,
    options: WriteOptions,
  ): Promise<WriteAnswer> => {
    const { changes } = judged;
    const warnings = [...(answer.warnings ?? []), ...approvalWarnings(judged)];
    const revision = revisionOf(answer.body);
    if (options.has('dryRun') || !recordsApprovals(changes) || revision === undefined) return { ...answer, warnings };
    const location = { namespace: answer.body.metadata.namespace, name: answer.body.metadata.name };
    const recording = {
      writer: writerName,
      at: new Date().toISOString(),
      revision,
      ...(judged.override ? { override: judged.override } : {}),
    };
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
    return { ...answer, body, warnings };
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
              location,
              resultAsJsonPatch(current, computed.result, field),
              JSON_PATCH,
              options,
            ),
            computed,
          }),
        };
      },
    );

  const spec =
    (location: ObjectLocation, patch: unknown, contentType: string, gates: StageApprovalGates) =>
    (current: PlatformObject) =>
      judgeStageApprovals(
        writer,
        current,
        objectForWrite(patchedObject(current, patch, contentType, ROLLOUT, location.name!), ROLLOUT, objects.apiGroup, {
          namespace: location.namespace,
          name: location.name,
        }),
        gates,
      );
  // The Project's approval policy for the Rollout (issue 45): read once for each write, never kept.
  const gatesOf = async ({ namespace, name }: ObjectLocation): Promise<StageApprovalGates> =>
    stageApprovalGates(await gatingProject(objects, namespace!), name!);

  return {
    ...plain,
    async create(location, object, options) {
      const judged = judgeStageApprovals(
        writer,
        undefined,
        object,
        await gatesOf({ ...location, name: object.metadata.name }),
      );
      return recorded(await plain.create(location, judged.result, options), judged, options);
    },
    async replace(location, object, options) {
      // The replace is pinned by the caller's resourceVersion: judged against another, the cluster refuses it (409).
      const judged = judgeStageApprovals(writer, await read(location), object, await gatesOf(location));
      return recorded(await plain.replace(location, judged.result, options), judged, options);
    },
    async patch(location, patch, contentType, options) {
      const gates = await gatesOf(location);
      const { answer, computed } = await patchResult(
        location,
        spec(location, patch, contentType, gates),
        'spec',
        options,
      );
      return recorded(answer, computed, options);
    },
    /**
     * The cluster merges an apply (field managers, list keys): its result is asked of it as a dry run, pinned
     * like the apply, and judged; when the revision changes, the configuration takes the withdrawn approvals
     * along. A dry run answers the judged dry run.
     */
    async apply(location, configuration, options) {
      const dryRun = new URLSearchParams(options);
      dryRun.set('dryRun', 'All');
      const stored = await objects.find<PlatformObject>(path(location));
      const gates = await gatesOf(location);
      let applied = configuration;
      let dry = await plain.apply(location, applied, dryRun);
      let judged = judgeStageApprovals(writer, stored, dry.body, gates);
      // The configuration takes the stages as judged: approvals withdrawn, gates as strict as the policy.
      if (judged.changes.outlived.length > 0 || judged.tightened.length > 0) {
        applied = { ...configuration, spec: { ...configuration.spec, stages: judged.result.spec!.stages } };
        dry = await plain.apply(location, applied, dryRun);
        judged = { ...judgeStageApprovals(writer, stored, dry.body, gates), tightened: judged.tightened };
      }
      if (options.has('dryRun')) return recorded(dry, judged, options);
      return recorded(await plain.apply(location, applied, options), judged, options);
    },
    async replaceStatus(location, object, options) {
      // Pinned by the caller's resourceVersion, as a replace of the object.
      const stored = await read(location);
      return plain.replaceStatus(location, withStoredApprovalRecords(object, stored), options);
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
      return answer;
    },
    async approveStage(location, stage, override) {
      await authoriseOverride(writer, override);
      const gates = { ...(await gatesOf(location)), ...(override ? { override } : {}) };
      const { answer, computed } = await patchResult(
        location,
        (current) => judgeStageApprovals(writer, current, withStageApproved(current, stage, gates), gates),
        'spec',
        new URLSearchParams(),
        rolloutToApprove,
      );
      return recorded(answer, computed, new URLSearchParams());
    },
  };
}
