import type { Database, TransactionQuery } from '../../base/database/database.ts';
import type { OutboxSource } from '../outbound/outbound-engine.ts';
import type { ClusterObjects } from '../resources/cluster-objects.ts';
import { PROJECT, ROLLOUT } from '../../contract/kinds/platform-kinds.ts';
import type { PlatformObject } from '../../contract/kinds/platform-object.ts';
import type { WindowPolicy } from '../../contract/rules/approval-windows.ts';
import {
  type GateEvent,
  gateEventOf,
  gateStatesOf,
  type ObservedGate,
  type RecordedGate,
  transitionMinute,
} from './approval-gate-states.ts';
import { clusterEventId } from './cluster-event-id.ts';
import {
  approversOf,
  type ObservedStage,
  type StageState,
  stageEventOf,
  stageStatesOf,
} from './rollout-stage-states.ts';

interface StageRow {
  stage: string;
  revision: string;
  state: StageState;
  transitions: number;
}

interface GateRow {
  gate: string;
  open: boolean;
  opening_start: Date | null;
  opening_end: Date | null;
  transitions: number;
}

interface NewEvent {
  id: string;
  type: string;
  subject: string;
  scope: string;
  data: Record<string, unknown>;
}

/** What one pass recorded. */
export interface ReconcileReport {
  events: number;
  removed: number;
}

/**
 * The events of what lives in the cluster (issue 47, item 1): Rollout stages awaiting approval, approved,
 * promoted, failed, an approval withdrawn; a Project's approval windows opened and closed and its freeze started
 * and lifted. Rollouts and Projects change where no transaction of ours reaches, so every outbound sweep (and the
 * approve and withdraw routes, right after their write) compares what the cluster shows with the state last
 * recorded (`rollout_stage_states`, `approval_gate_states`, migration 018) and, for each change, writes the outbox
 * event and the new state in one transaction under the recorded rows' lock. A change seen by a sweeper holding
 * an older copy is read again under that lock, so no sweeper records a state older than one recorded already.
 * Changes that came and went between two passes are not seen (a stage approved and promoted in between is told
 * promoted). `now` is the windows' clock (the database's when not given).
 */
export class ClusterEventReconciler implements OutboxSource {
  readonly name = 'cluster-events';
  readonly #objects: () => Promise<ClusterObjects>;
  readonly #now: (() => Date) | undefined;

  constructor(objects: () => Promise<ClusterObjects>, now?: () => Date) {
    this.#objects = objects;
    this.#now = now;
  }

  /** One pass over every Rollout of every Project and every Project's gates, then the rows of what is gone. */
  async record(database: Database): Promise<ReconcileReport> {
    const { rows } = await database.query<{ listed_at: Date }>('SELECT clock_timestamp() AS listed_at');
    const listedAt = rows[0]!.listed_at;
    const cluster = await this.#objects();
    const [projects, rollouts] = await Promise.all([
      listOf(cluster, cluster.platformPath(PROJECT)),
      listOf(cluster, cluster.platformPath(ROLLOUT)),
    ]);
    const projectNames = new Set(projects.map((project) => project.metadata.name));
    const inProjects = rollouts.filter((rollout) => projectNames.has(rollout.metadata.namespace));
    // A quiet pass is two reads: only what differs from the rows read here takes a transaction (and its locks).
    const recorded = await recordedStates(database);
    const now = this.#now?.() ?? listedAt;
    let events = 0;
    for (const rollout of inProjects)
      if (stagesDiffer(rollout, recorded.stages.get(rollout.metadata.uid ?? '')))
        events += await this.recordRollout(database, rollout);
    for (const project of projects)
      if (gatesDiffer(gateStatesOf(policyOf(project), now), recorded.gates.get(project.metadata.uid ?? '')))
        events += await this.#recordGates(database, project);
    // Rows recorded before this listing of objects it does not show: their Rollout or Project was deleted.
    const removed = await database.query(
      `WITH stages AS (
         DELETE FROM rollout_stage_states WHERE recorded_at < $1 AND NOT (rollout_uid = ANY($2::text[])) RETURNING 1
       ), gates AS (
         DELETE FROM approval_gate_states WHERE recorded_at < $1 AND NOT (project_uid = ANY($3::text[])) RETURNING 1
       ) SELECT (SELECT count(*) FROM stages) + (SELECT count(*) FROM gates) AS removed`,
      [listedAt, uidsOf(inProjects), uidsOf(projects)],
    );
    return { events, removed: Number(removed.rows[0]?.removed ?? 0) };
  }

  /**
   * Records the changes of one Rollout's stages (a copy of it as listed, or as a write answered it); resolves to
   * how many events it wrote. Stages no longer in its spec lose their rows. `changedStage`: the stage a write
   * just changed (the approve and withdraw routes), told even when no sweep has seen its Rollout yet.
   */
  async recordRollout(database: Database, listed: PlatformObject, changedStage?: string): Promise<number> {
    const uid = listed.metadata.uid;
    if (!uid) return 0;
    return database.transaction(async (query) => {
      // FOR UPDATE locks only rows that exist: a Rollout's first sighting (by a sweep) and a route's record of the
      // stage it just changed take this lock too, so the later of the two reads what the earlier recorded.
      await query("SELECT pg_advisory_xact_lock(hashtextextended('rollout_stage_states:' || $1, 0))", [uid]);
      const { rows } = await query<StageRow>(
        'SELECT stage, revision, state, transitions FROM rollout_stage_states WHERE rollout_uid = $1 FOR UPDATE',
        [uid],
      );
      const recorded = new Map(rows.map((row) => [row.stage, row]));
      let rollout = listed;
      const changed = (stage: ObservedStage) => {
        const before = recorded.get(stage.stage);
        return before === undefined || before.state !== stage.state || before.revision !== stage.revision;
      };
      // The copy may be older than the state another sweeper recorded: read it again under the lock.
      if (rows.length > 0 && stageStatesOf(rollout).some(changed)) {
        const fresh = await this.#fresh(rollout);
        if (fresh?.metadata.uid !== uid) return 0;
        rollout = fresh;
      }
      const stages = stageStatesOf(rollout);
      // The stage a route just changed, which a sweep's first sighting recorded as history (no event, no
      // transition) between the route's write and this record: the route's change is still news.
      const untold = (stage: ObservedStage) =>
        stage.stage === changedStage && stage.state !== 'pending' && recorded.get(stage.stage)?.transitions === 0;
      let events = 0;
      for (const stage of stages.filter((stage) => changed(stage) || untold(stage)))
        events += await recordStage(
          query,
          rollout,
          uid,
          stage,
          recorded.get(stage.stage),
          stage.stage === changedStage,
        );
      await query('DELETE FROM rollout_stage_states WHERE rollout_uid = $1 AND NOT (stage = ANY($2::text[]))', [
        uid,
        stages.map((stage) => stage.stage),
      ]);
      return events;
    });
  }

  async #fresh(rollout: PlatformObject): Promise<PlatformObject | undefined> {
    const cluster = await this.#objects();
    const { namespace, name } = rollout.metadata;
    return cluster.find<PlatformObject>(cluster.platformPath(ROLLOUT, { namespace, name }));
  }

  async #recordGates(database: Database, listed: PlatformObject): Promise<number> {
    const uid = listed.metadata.uid;
    if (!uid) return 0;
    return database.transaction(async (query) => {
      const { rows } = await query<GateRow>(
        `SELECT gate, open, opening_start, opening_end, transitions FROM approval_gate_states
         WHERE project_uid = $1 FOR UPDATE`,
        [uid],
      );
      const recorded = new Map(rows.map((row) => [row.gate, row]));
      let project = listed;
      let now = await this.#clock(query);
      const changed = (gate: ObservedGate) => recorded.get(gate.gate)?.open !== gate.open;
      if (rows.length > 0 && gateStatesOf(policyOf(project), now).some(changed)) {
        const cluster = await this.#objects();
        const fresh = await cluster.find<PlatformObject>(
          cluster.platformPath(PROJECT, { name: project.metadata.name }),
        );
        if (fresh?.metadata.uid !== uid) return 0;
        project = fresh;
        now = await this.#clock(query);
      }
      const gates = gateStatesOf(policyOf(project), now);
      let events = 0;
      for (const gate of gates) {
        const row = recorded.get(gate.gate);
        if (row && !changed(gate)) {
          if (gate.open && row.opening_end?.getTime() !== gate.opening?.end.getTime())
            await query(
              'UPDATE approval_gate_states SET opening_start = $3, opening_end = $4 WHERE project_uid = $1 AND gate = $2',
              [uid, gate.gate, gate.opening?.start ?? null, gate.opening?.end ?? null],
            );
          continue;
        }
        events += await recordGate(query, project, uid, gate, row);
      }
      await query('DELETE FROM approval_gate_states WHERE project_uid = $1 AND NOT (gate = ANY($2::text[]))', [
        uid,
        gates.map((gate) => gate.gate),
      ]);
      return events;
    });
  }

  /** The windows' clock: the one given, else the database's (one clock for every instance, later for a later lock). */
  async #clock(query: TransactionQuery): Promise<Date> {
    if (this.#now) return this.#now();
    const { rows } = await query<{ now: Date }>('SELECT clock_timestamp() AS now');
    return rows[0]!.now;
  }
}

type StageKey = Pick<StageRow, 'revision' | 'state'>;
type GateKey = Pick<GateRow, 'open' | 'opening_end'>;

/** Every recorded state, by Rollout uid and stage, and by Project uid and gate (read without a lock: a hint only). */
async function recordedStates(database: Database): Promise<{
  stages: Map<string, Map<string, StageKey>>;
  gates: Map<string, Map<string, GateKey>>;
}> {
  const [stageRows, gateRows] = await Promise.all([
    database.query<StageKey & { rollout_uid: string; stage: string }>(
      'SELECT rollout_uid, stage, revision, state FROM rollout_stage_states',
    ),
    database.query<GateKey & { project_uid: string; gate: string }>(
      'SELECT project_uid, gate, open, opening_end FROM approval_gate_states',
    ),
  ]);
  const stages = new Map<string, Map<string, StageKey>>();
  for (const row of stageRows.rows) {
    const byStage = stages.get(row.rollout_uid) ?? new Map<string, StageKey>();
    stages.set(row.rollout_uid, byStage.set(row.stage, row));
  }
  const gates = new Map<string, Map<string, GateKey>>();
  for (const row of gateRows.rows) {
    const byGate = gates.get(row.project_uid) ?? new Map<string, GateKey>();
    gates.set(row.project_uid, byGate.set(row.gate, row));
  }
  return { stages, gates };
}

/** Whether a Rollout's stages are not what the rows say (a state, a revision, a stage added or removed). */
function stagesDiffer(rollout: PlatformObject, recorded: Map<string, StageKey> | undefined): boolean {
  const observed = stageStatesOf(rollout);
  if (observed.length !== (recorded?.size ?? 0)) return true;
  return observed.some((stage) => {
    const row = recorded?.get(stage.stage);
    return row === undefined || row.state !== stage.state || row.revision !== stage.revision;
  });
}

/** Whether a Project's gates are not what the rows say (open or shut, the opening, a gate added or removed). */
function gatesDiffer(observed: ObservedGate[], recorded: Map<string, GateKey> | undefined): boolean {
  if (observed.length !== (recorded?.size ?? 0)) return true;
  return observed.some((gate) => {
    const row = recorded?.get(gate.gate);
    return (
      row === undefined ||
      row.open !== gate.open ||
      (gate.open && row.opening_end?.getTime() !== gate.opening?.end.getTime())
    );
  });
}

async function listOf(cluster: ClusterObjects, path: string): Promise<PlatformObject[]> {
  return (await cluster.send<{ items?: PlatformObject[] }>({ method: 'GET', path })).body.items ?? [];
}

const uidsOf = (objects: readonly PlatformObject[]) =>
  objects.flatMap((object) => (object.metadata.uid ? [object.metadata.uid] : []));

function policyOf(project: PlatformObject): WindowPolicy | undefined {
  const policy = project.spec?.approvalPolicy;
  return typeof policy === 'object' && policy !== null ? (policy as WindowPolicy) : undefined;
}

/** Records one stage's new state and, when the change is an event, the event; resolves to 1 when it wrote one. */
async function recordStage(
  query: TransactionQuery,
  rollout: PlatformObject,
  uid: string,
  stage: ObservedStage,
  before: StageRow | undefined,
  justChanged: boolean,
): Promise<number> {
  // A stage recorded as history only (no event yet) that the caller has just changed is told as first seen.
  const untold = justChanged && before?.transitions === 0;
  const event = stageEventOf(untold ? undefined : before, stage, justChanged ? 'current' : 'awaiting');
  const transitions = (before?.transitions ?? 0) + (event ? 1 : 0);
  const project = rollout.metadata.namespace!;
  const name = rollout.metadata.name!;
  if (before === undefined) {
    const inserted = await query(
      `INSERT INTO rollout_stage_states (rollout_uid, stage, project, rollout, revision, state, transitions)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (rollout_uid, stage) DO NOTHING`,
      [uid, stage.stage, project, name, stage.revision, stage.state, transitions],
    );
    // Another sweeper saw it first and recorded it (and its event): the next pass compares with that.
    if (inserted.rowCount === 0) return 0;
  } else
    await query(
      `UPDATE rollout_stage_states SET revision = $3, state = $4, transitions = $5
       WHERE rollout_uid = $1 AND stage = $2`,
      [uid, stage.stage, stage.revision, stage.state, transitions],
    );
  if (!event) return 0;
  await insertEvent(query, {
    id: clusterEventId('rollout-stage', uid, stage.stage, stage.revision, event, String(transitions)),
    type: `rollout.stage_${event}`,
    subject: `rollouts/${project}/${name}`,
    scope: project,
    data: {
      project,
      rollout: name,
      uid,
      labels: rollout.metadata.labels ?? {},
      stage: stage.stage,
      stageIndex: stage.index,
      revision: stage.revision,
      phase: stage.phase,
      rolloutPhase: typeof rollout.status?.phase === 'string' ? rollout.status.phase : null,
      state: stage.state,
      previousState: before?.state ?? null,
      approvedBy: approversOf(rollout, stage.stage),
    },
  });
  return 1;
}

/** Records one gate's new state and, when the change is an event, the event; resolves to 1 when it wrote one. */
async function recordGate(
  query: TransactionQuery,
  project: PlatformObject,
  uid: string,
  gate: ObservedGate,
  before: GateRow | undefined,
): Promise<number> {
  const recorded: RecordedGate | undefined = before && {
    open: before.open,
    openingStart: before.opening_start,
    openingEnd: before.opening_end,
  };
  const event = gateEventOf(recorded, gate);
  const transitions = (before?.transitions ?? 0) + (event ? 1 : 0);
  const name = project.metadata.name!;
  const values = [uid, gate.gate, name, gate.open, gate.opening?.start ?? null, gate.opening?.end ?? null, transitions];
  if (before === undefined) {
    const inserted = await query(
      `INSERT INTO approval_gate_states (project_uid, gate, project, open, opening_start, opening_end, transitions)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (project_uid, gate) DO NOTHING`,
      values,
    );
    if (inserted.rowCount === 0) return 0;
  } else
    await query(
      `UPDATE approval_gate_states SET project = $3, open = $4, opening_start = $5, opening_end = $6, transitions = $7
       WHERE project_uid = $1 AND gate = $2`,
      values,
    );
  if (!event || !recorded) return 0;
  const at = transitionMinute(event, recorded, gate) ?? `#${transitions}`;
  await insertEvent(query, {
    id: clusterEventId('approval-gate', uid, gate.gate, event, at),
    type: event,
    subject: gate.window ? `windows/${name}/${gate.window.name}` : `freeze/${name}`,
    scope: name,
    data: gateData(project, gate, event, recorded),
  });
  return 1;
}

function gateData(
  project: PlatformObject,
  gate: ObservedGate,
  event: GateEvent,
  recorded: RecordedGate,
): Record<string, unknown> {
  const name = project.metadata.name!;
  if (!gate.window) {
    const freeze = policyOf(project)?.freeze;
    return { project: name, frozen: gate.open, reason: freeze?.reason ?? null, since: freeze?.since ?? null };
  }
  const { window } = gate;
  return {
    project: name,
    window: window.name,
    kind: window.kind,
    appliesTo: window.appliesTo ?? {},
    change: event === 'window.opened' ? 'opened' : 'closed',
    ...(event === 'window.opened'
      ? { openedAt: gate.opening!.start.toISOString(), closesAt: gate.opening!.end.toISOString() }
      : {
          openedAt: recorded.openingStart?.toISOString() ?? null,
          closedAt: recorded.openingEnd?.toISOString() ?? null,
        }),
  };
}

/**
 * An event in the transaction of its state: `created_at` is the statement's own instant (not the millisecond the
 * column's default keeps), so two events of one Rollout written in one pass keep their order (order per subject).
 * The id's primary key keeps a repeat once; a write traced (the approve route's) carries its trace to the delivery.
 */
async function insertEvent(query: TransactionQuery, event: NewEvent): Promise<void> {
  await query(
    `INSERT INTO outbox_events (id, type, subject, scope, data, created_at, trace_parent)
     VALUES ($1, $2, $3, $4, $5, clock_timestamp(), statement_trace_parent()) ON CONFLICT (id) DO NOTHING`,
    [event.id, event.type, event.subject, event.scope, event.data],
  );
}
