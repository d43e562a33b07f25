import {
  APPROVED_REVISION_ANNOTATION,
  APPROVED_STAGES_ANNOTATION,
  APPROVER_ANNOTATION,
  AUTHOR_ANNOTATION,
  WITHDRAWN_APPROVALS_ANNOTATION,
  noteForAudit,
} from '../../../shared/domain/audit/audit-annotations.ts';
import { DECISION_ANNOTATION, REASON_ANNOTATION } from '../../../shared/domain/audit/audit-event.ts';
import { ApiError } from '../../../shared/base/http/api-error.ts';
import { apiError } from '../../../shared/base/http/error-catalogue.ts';
import type { ClusterObjects, ObjectLocation } from '../../../shared/domain/resources/cluster-objects.ts';
import { PROJECT, ROLLOUT } from '../../../shared/contract/kinds/platform-kinds.ts';
import {
  policyStageGates,
  withPolicyGates,
  type PolicyGate,
} from '../../../shared/domain/approvals/approval-policy.ts';
import type { PlatformObject } from '../../../shared/contract/kinds/platform-object.ts';
import {
  approvalChanges,
  recordedRevisionAuthor,
  recordedStatus,
  recordsApprovals,
  revisionOf,
  stageGates,
  withStagesApproved,
  withStoredApprovalRecords,
  type ApprovalChanges,
} from '../../../shared/domain/resources/rollout-approvals.ts';
import { runPrincipal } from '../../../shared/domain/runs/run-principal.ts';
import type { TimeGatePolicy } from '../../../shared/domain/approvals/time-gates.ts';
import {
  authoriseOverride,
  passTimeGates,
  projectTimeGates,
  type OverrideRecord,
  type OverrideRequest,
} from '../time-gate-enforcement.ts';
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

/** A write's result as judged: the object to send (approvals that outlived their revision withdrawn) and what it changes. */
interface Judged {
  result: PlatformObject;
  changes: ApprovalChanges;
  /** Stages the Project's approval policy made stricter than the write asked (issue 45). */
  tightened: string[];
  /** The override of the Project's time gates that let the write's approvals through, for their records. */
  override?: OverrideRecord;
}

/**
 * What the Project says of a write's approvals (issue 45): its stage gates (`spec.approvalPolicy.stages`),
 * its time gates (windows, freeze, soak time), and the caller's override of the latter if any.
 */
interface Gates {
  stages: StagePolicy;
  policy: TimeGatePolicy;
  override?: OverrideRequest;
}

/** The Project's approval policy for one Rollout: its gated stages by key. */
type StagePolicy = ReadonlyMap<string, PolicyGate>;

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
  const writerName = runPrincipal(writer.principal).principal;
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

  // The Project's approval policy for the Rollout (issue 45): read for each write, never kept.
  const policyFor = async ({ namespace, name }: ObjectLocation): Promise<StagePolicy> =>
    policyStageGates(await objects.find<PlatformObject>(objects.platformPath(PROJECT, { name: namespace })), name!);

  /**
   * Refuses the write (nothing is sent) unless its approvals may be changed by this writer; notes why for the
   * audit trail. The result is first made as strict as the Project's policy: the gate it asks holds whatever
   * the write, and the stored object is judged the same way (a Rollout written before the policy).
   */
  const judge = (stored: PlatformObject | undefined, written: PlatformObject, gates: Gates): Judged => {
    const { result, tightened } = withPolicyGates(written, gates.stages);
    const changes = approvalChanges(stored && withPolicyGates(stored, gates.stages).result, result);
    const author = changes.authorsRevision ? writerName : stored && recordedRevisionAuthor(stored);
    if (changes.granted.length > 0) {
      // Both principals, on a refused approval too.
      noteForAudit(writer, APPROVER_ANNOTATION, writerName);
      noteForAudit(writer, AUTHOR_ANNOTATION, author ?? '');
    }
    if (changes.granted.length > 0 || changes.loosened.length > 0) {
      try {
        writer.authorisation.requireVerb('approve');
      } catch (error) {
        if (error instanceof ApiError) {
          // The chain allowed the write's verb; the write as a whole is refused for want of `approve`.
          noteForAudit(writer, DECISION_ANNOTATION, 'forbid');
          noteForAudit(writer, REASON_ANNOTATION, error.message);
        }
        throw error;
      }
    }
    if (changes.fourEyes.length > 0) {
      const stages = changes.fourEyes.join(', ');
      if (author === undefined)
        throw apiError(
          'RevisionAuthorUnknown',
          `stage ${stages} needs an approver other than the author of revision "${revisionOf(result)}", and no author is recorded for it (status.revisionAuthor); write spec.revision through the API to record one`,
        );
      if (author === writerName)
        throw apiError(
          'ApproverIsAuthor',
          `${writerName} changed revision "${revisionOf(result)}" and may not approve stage ${stages}, which needs another approver (approval.distinctFromAuthor)`,
        );
    }
    // Windows, the freeze and soak times: checked once the approval is otherwise allowed.
    const override =
      changes.granted.length > 0
        ? passTimeGates(writer, gates.policy, { rollout: result.metadata.name! }, gates.override, {
            rollout: stored ?? result,
            stages: changes.granted,
          })
        : undefined;
    if (changes.granted.length > 0) {
      noteForAudit(writer, APPROVED_STAGES_ANNOTATION, changes.granted.join(','));
      noteForAudit(writer, APPROVED_REVISION_ANNOTATION, revisionOf(result) ?? '');
    }
    if (changes.withdrawn.length > 0) noteForAudit(writer, WITHDRAWN_APPROVALS_ANNOTATION, changes.withdrawn.join(','));
    return {
      result: withStagesApproved(result, changes.outlived, false),
      changes,
      tightened,
      ...(override ? { override } : {}),
    };
  };

  /** Records the write's approvals and revision author in the status (never for a dry run), and warns of outlived approvals. */
  const recorded = async (answer: WriteAnswer, judged: Judged, options: WriteOptions): Promise<WriteAnswer> => {
    const { changes, tightened } = judged;
    const warnings = [
      ...(answer.warnings ?? []),
      ...(tightened.length > 0
        ? [
            `299 - "the Project's approval policy gates stage ${tightened.join(', ')}: its approval fields were written as the policy asks"`,
          ]
        : []),
      ...(changes.outlived.length > 0
        ? [
            `299 - "spec.revision changed: the approval of stage ${changes.outlived.join(', ')} was withdrawn; approve the new revision"`,
          ]
        : []),
    ];
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
    (location: ObjectLocation, patch: unknown, contentType: string, gates: Gates) => (current: PlatformObject) =>
      judge(
        current,
        objectForWrite(patchedObject(current, patch, contentType, ROLLOUT, location.name!), ROLLOUT, objects.apiGroup, {
          namespace: location.namespace,
          name: location.name,
        }),
        gates,
      );
  const gatesOf = async (location: ObjectLocation): Promise<Gates> => ({
    stages: await policyFor(location),
    policy: await projectTimeGates(objects, location.namespace!),
  });

  return {
    ...plain,
    async create(location, object, options) {
      const judged = judge(undefined, object, await gatesOf({ ...location, name: object.metadata.name }));
      return recorded(await plain.create(location, judged.result, options), judged, options);
    },
    async replace(location, object, options) {
      // The replace is pinned by the caller's resourceVersion: judged against another, the cluster refuses it (409).
      const judged = judge(await read(location), object, await gatesOf(location));
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
      let judged = judge(stored, dry.body, gates);
      // The configuration takes the stages as judged: approvals withdrawn, gates as strict as the policy.
      if (judged.changes.outlived.length > 0 || judged.tightened.length > 0) {
        applied = { ...configuration, spec: { ...configuration.spec, stages: judged.result.spec!.stages } };
        dry = await plain.apply(location, applied, dryRun);
        judged = { ...judge(stored, dry.body, gates), tightened: judged.tightened };
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
        (current) =>
          judge(current, approvedStage(withPolicyGates(current, gates.stages).result, stage, location.name!), gates),
        'spec',
        new URLSearchParams(),
        rolloutToApprove,
      );
      return recorded(answer, computed, new URLSearchParams());
    },
  };
}

/** The Rollout with `stage` approved; 404 when it has no such stage, 409 when it needs no approval or has it. */
function approvedStage(current: PlatformObject, stage: string, rollout: string): PlatformObject {
  const gate = stageGates(current).get(stage);
  if (!gate) throw apiError('StageNotFound', `rollout "${rollout}" has no stage for workspace "${stage}"`);
  if (!gate.required)
    throw apiError('ApprovalNotRequired', `stage "${stage}" of rollout "${rollout}" does not require approval`);
  if (gate.approved)
    throw apiError(
      'AlreadyApproved',
      `stage "${stage}" of rollout "${rollout}" is already approved for revision "${revisionOf(current)}"`,
    );
  return withStagesApproved(current, [stage], true);
}
