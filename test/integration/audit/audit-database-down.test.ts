// Issue 22, "what happens when the database is down is a documented choice per mode": AUDIT_MODE=batch
// keeps a bounded buffer, counts what it drops and writes the rest once the database is back;
// AUDIT_MODE=blocking refuses a write with 503 rather than act unrecorded. Real PostgreSQL, stopped
// and started again.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AuditEvent } from '../../../shared/domain/audit/audit-event.ts';
import { microTime } from '../../../shared/domain/audit/audit-event-builder.ts';
import { AuditStore, type SerialisedAuditEvent } from '../../../shared/domain/audit/audit-store.ts';
import { DatabaseAuditSink } from '../../../shared/domain/audit/database-audit-sink.ts';
import { migrate } from '../../../shared/base/database/migrate.ts';
import { poolDatabase } from '../../../shared/base/database/database.ts';
import { DatabaseUnavailableError } from '../../../shared/base/database/database-unavailable-error.ts';
import { capturingLogger } from '../../support/function-servers.ts';
import { startTestDatabase, type TestDatabase } from '../../support/test-database.ts';
import { API, TEAM_PROJECT, send, usePlatform, workspaceObject } from '../../support/platform-fixture.ts';

const event = (n: number): AuditEvent => ({
  kind: 'Event',
  apiVersion: 'audit.k8s.io/v1',
  level: 'Metadata',
  auditID: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  stage: 'ResponseComplete',
  requestURI: '/buffered',
  verb: 'create',
  user: { username: 'buffer-test' },
  sourceIPs: [],
  requestReceivedTimestamp: microTime(new Date()),
  stageTimestamp: microTime(new Date()),
});

describe('Issue 43, item 5: one way to the database, with error classification on every path', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await startTestDatabase();
    await migrate(database.pool);
  });
  afterAll(() => database?.destroy());

  it('the audit list, a path that chose its own query and left errors unclassified, answers a database outage as 503 DatabaseUnavailable with Retry-After', async () => {
    const store = new AuditStore(poolDatabase(database.pool));
    expect((await store.list({ limit: 1 })).items).toEqual([]);
    await database.stopServer();
    try {
      for (const signal of [undefined, AbortSignal.timeout(60_000)]) {
        const refused = await store.list({ limit: 1 }, signal).catch((error: unknown) => error);
        expect(refused).toBeInstanceOf(DatabaseUnavailableError);
        expect(refused).toMatchObject({ status: 503, reason: 'DatabaseUnavailable', headers: { 'retry-after': '5' } });
      }
    } finally {
      await database.startServer();
    }
  });
});

describe('issue 22: AUDIT_MODE=batch while the database is down', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await startTestDatabase();
    await migrate(database.pool);
  });
  afterAll(() => database?.destroy());

  it('keeps at most AUDIT_BUFFER_EVENTS, counts and logs what it dropped, and writes the rest once the database is back', async () => {
    const logger = capturingLogger();
    const sink = new DatabaseAuditSink(async () => new AuditStore(database.pool), {
      bufferEvents: 20,
      logger,
      flushIntervalMs: 60_000,
    });
    await database.stopServer();
    for (let n = 1; n <= 30; n++) sink.write(event(n), JSON.stringify(event(n)));
    await sink.flush();
    expect(sink.dropped).toBe(10);
    expect(sink.pending).toBe(20);
    expect(logger.lines.join('\n')).toMatch(
      /audit events could not be written to the database.*"droppedSinceLastReport":10/,
    );
    await database.startServer();
    await sink.flush();
    expect(sink.pending).toBe(0);
    const { rows } = await database.pool.query<{ audit_id: string }>(
      "SELECT audit_id FROM audit_events WHERE username = 'buffer-test' ORDER BY seq",
    );
    // The newest 20 were kept: the oldest were dropped first.
    expect(rows.map((row) => row.audit_id)).toEqual(
      Array.from({ length: 20 }, (_, index) => event(index + 11).auditID),
    );
  });

  it('issue 22, item 6 (off the critical path): a filled batch is written at once, in full batches only; the rest waits for the timer or a flush', async () => {
    const statements: number[] = [];
    class CountingStore extends AuditStore {
      override insertSerialised(events: readonly SerialisedAuditEvent[]) {
        statements.push(events.length);
        return super.insertSerialised(events);
      }
    }
    const store = new CountingStore(database.pool);
    const sink = new DatabaseAuditSink(async () => store, {
      bufferEvents: 1_000,
      batchSize: 10,
      logger: capturingLogger(),
      flushIntervalMs: 60_000,
    });
    for (let n = 1; n <= 25; n++) sink.write(event(100 + n), JSON.stringify(event(100 + n)));
    await vi.waitFor(() => expect(statements).toHaveLength(2));
    await new Promise((resolve) => setTimeout(resolve, 200));
    // Each statement carried a full batch; the five that fill none wait (here for the flush below).
    expect(statements).toEqual([10, 10]);
    expect(sink.pending).toBe(5);
    await sink.flush();
    expect(statements).toEqual([10, 10, 5]);
    const { rows } = await database.pool.query<{ count: string }>(
      'SELECT count(*) FROM audit_events WHERE audit_id = ANY($1::uuid[])',
      [Array.from({ length: 25 }, (_, index) => event(101 + index).auditID)],
    );
    expect(Number(rows[0]!.count)).toBe(25);
  });
});

describe('issue 22: AUDIT_MODE=blocking refuses a write it cannot record', () => {
  const platform = usePlatform({ AUDIT_STDOUT: 'false', AUDIT_MODE: 'blocking' });
  const admin = (method: string, path: string, body?: unknown) =>
    send(platform().gateway.url, platform().tokens.admin, method, path, body);
  const workspaces = `${API}/namespaces/${TEAM_PROJECT}/workspaces`;

  it('database down: the write is 503 AuditUnavailable and nothing is written; a read still answers', async () => {
    await platform().database.stopServer();
    try {
      const refused = await admin('POST', workspaces, workspaceObject('unrecorded'));
      expect(refused.status).toBe(503);
      expect(await refused.json()).toMatchObject({ reason: 'AuditUnavailable' });
      expect(refused.headers.get('retry-after')).toBe('5');
      expect(await platform().clusterAdmin.find(`${workspaces}/unrecorded`)).toBeUndefined();
      expect((await admin('GET', workspaces)).status).toBe(200);
    } finally {
      await platform().database.startServer();
    }
  });

  it('database up: the write is done, and its RequestReceived event was stored before it', async () => {
    const response = await admin('POST', workspaces, workspaceObject('recorded'));
    expect(response.status).toBe(201);
    const { rows } = await platform().database.pool.query<{ stage: string }>(
      'SELECT stage FROM audit_events WHERE audit_id = $1 ORDER BY seq',
      [response.headers.get('audit-id')],
    );
    expect(rows[0]?.stage).toBe('RequestReceived');
  });
});
