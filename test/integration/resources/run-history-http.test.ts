// Issue 35 through HTTP: the run-log stream serves a compacted log exactly as it served the rows
// (replay, resume with Last-Event-ID across the live/compacted boundary both ways, a catch-up that a
// compaction overtakes, masking kept), late chunks after the run ended are refused before and after
// compaction, and retention ends a stream with `event: removed` while the run says `logRemovedAt`.
import { describe, expect, it } from 'vitest';
import { RunHistoryRetention } from '../../../shared/domain/runs/history/run-history-retention.ts';
import { linesOfBlock } from '../../../shared/domain/runs/logs/run-log-blocks.ts';
import { RunLogCompactor } from '../../../shared/domain/runs/logs/run-log-compaction.ts';
import { testRuns } from '../../support/test-runs.ts';
import {
  chunkedBody,
  openStalledStream,
  parseEvents,
  readEvents,
  type SseEvent,
} from '../../support/server-sent-events.ts';
import { heldRuns } from '../../support/held-runs.ts';
import { API, TEAM_PROJECT, expectStatus, send, usePlatform, workspaceObject } from '../../support/platform-fixture.ts';
import { poolDatabase } from '../../../shared/base/database/database.ts';

const platform = usePlatform();
const { runningRun, appendLines, sendChunk, finish } = heldRuns(platform, 'history');
const DAY_MS = 86_400_000;
const streamPath = (runId: string) => `/api/v1alpha1/run-logs/${TEAM_PROJECT}/${runId}`;
const admin = (method: string, path: string, body?: unknown) =>
  send(platform().gateway.url, platform().tokens.admin, method, path, body);
const compact = (runId: string) =>
  new RunLogCompactor(poolDatabase(platform().database.pool), {
    delayMs: 0,
    linesPerStep: 10_000,
    restRatio: 0,
  }).compactRun(runId);
const finishedAgo = (runId: string, ms: number) =>
  platform().database.pool.query(
    "UPDATE runs SET finished_at = date_trunc('milliseconds', now()) - $2 * interval '1 millisecond' WHERE id = $1",
    [runId, ms],
  );
const removeExpired = (policy: { historyMs: number; logMs: number }) =>
  new RunHistoryRetention(poolDatabase(platform().database.pool), policy).removeExpired();

/** The whole stream as the server sends it, comments (heartbeats) aside: it closes after its last event. */
async function streamText(runId: string, lastEventId?: number): Promise<string> {
  const response = await fetch(`${platform().gateway.url}${streamPath(runId)}`, {
    headers: {
      authorization: `Bearer ${platform().tokens.admin}`,
      ...(lastEventId !== undefined ? { 'last-event-id': String(lastEventId) } : {}),
    },
  });
  expect(response.status).toBe(200);
  return (await response.text()).replace(/^: heartbeat\n\n/gm, '');
}

const lineEvents = (events: SseEvent[]) => events.filter((event) => event.event === undefined);
const finalEvent = (events: SseEvent[]) => events[events.length - 1]!;

/** Lines of several kinds: colours, a line with breaks inside (several data: fields), unicode, an empty one. */
const lines = (count: number, tag: string) =>
  Array.from({ length: count }, (_, index) =>
    index % 5 === 0
      ? `\u001b[1m${tag} ${index + 1}: Creating...\u001b[0m`
      : index % 5 === 1
        ? `${tag} ${index + 1} first part\nsecond part`
        : index % 5 === 2
          ? `${tag} ${index + 1} ünïcødé ✓`
          : index % 5 === 3
            ? ''
            : `${tag} ${index + 1} ${'x'.repeat(index % 90)}`,
  );

/** A Running run of the test's controller with `count` lines, appended in chunks as the controller does. */
async function runWithLines(count: number, tag: string, chunk = 500): Promise<{ runId: string; text: string[] }> {
  const text = lines(count, tag);
  const runId = await runningRun();
  for (let offset = 0; offset < count; offset += chunk) await appendLines(runId, text.slice(offset, offset + chunk));
  return { runId, text };
}

/**
 * A finished run of 12,000 lines of 1 KB (far more than the socket buffers of both ends hold),
 * compacted if asked, and a stream on it that reads nothing yet: its catch-up is still reading pages
 * when the test acts. `readToEnd` reads what the server sent, as events.
 */
async function stalledReaderOfLargeRun(tag: string, compacted = false) {
  const padding = tag[0]!.repeat(1_000);
  const text = Array.from({ length: 12_000 }, (_, index) => `${tag} ${index + 1} ${padding}`);
  const runId = await runningRun();
  for (let offset = 0; offset < text.length; offset += 900) await appendLines(runId, text.slice(offset, offset + 900));
  await finish(runId);
  if (compacted) await compact(runId);
  const stalled = await openStalledStream(platform().gateway.url, streamPath(runId), {
    authorization: `Bearer ${platform().tokens.admin}`,
    connection: 'close',
  });
  await new Promise((resolve) => setTimeout(resolve, 300));
  return {
    runId,
    text,
    readToEnd: async () => parseEvents(chunkedBody(await stalled.readToEnd())).events,
  };
}

describe('Issue 35: the run-log stream serves a compacted log byte for byte as it served the rows', () => {
  it('the replay of a finished run, and a resume with Last-Event-ID from anywhere, are the same text before and after compaction', async () => {
    const { runId } = await runWithLines(2_345, 'replay');
    await finish(runId);
    const positions = [0, 1, 999, 1_000, 1_001, 2_344, 2_345];
    const before = [await streamText(runId), ...(await Promise.all(positions.map((at) => streamText(runId, at))))];
    expect(parseEvents(before[0]!).events).toHaveLength(2_345 + 1);
    expect(finalEvent(parseEvents(before[0]!).events).event).toBe('end');

    expect(await compact(runId)).toMatchObject({ lines: 2_345, complete: true });
    const after = [await streamText(runId), ...(await Promise.all(positions.map((at) => streamText(runId, at))))];
    expect(after).toEqual(before);
  });

  it('a stream opened while the run was live, cut, resumes with Last-Event-ID after the run ended and was compacted: every line once, then end', async () => {
    const { runId, text } = await runWithLines(600, 'live');
    const live = await fetch(`${platform().gateway.url}${streamPath(runId)}`, {
      headers: { authorization: `Bearer ${platform().tokens.admin}` },
    });
    const firstPart = await readEvents(live, (events) => events.some((event) => event.id === '600'));
    const rest = lines(700, 'after the cut');
    await appendLines(runId, rest.slice(0, 350));
    await appendLines(runId, rest.slice(350));
    await finish(runId);
    await compact(runId);

    const resumed = parseEvents(await streamText(runId, 600)).events;
    expect(lineEvents(firstPart).map((event) => event.data)).toEqual(text);
    expect(lineEvents(resumed).map((event) => Number(event.id))).toEqual(
      Array.from({ length: 700 }, (_, index) => 601 + index),
    );
    expect(lineEvents(resumed).map((event) => event.data)).toEqual(rest);
    expect(finalEvent(resumed)).toMatchObject({ event: 'end' });
    expect(JSON.parse(finalEvent(resumed).data)).toMatchObject({ phase: 'Succeeded' });
  });

  it('the other way: a resume inside the compacted blocks goes on into lines stored as rows after them, in order', async () => {
    const { runId, text } = await runWithLines(1_500, 'blocks then rows');
    await finish(runId);
    await compact(runId);
    // Lines written without a lease after compaction (a tool): rows after the blocks.
    await testRuns(platform().database.pool).appendLogLines(runId, ['late row one', 'late row two']);
    const resumed = parseEvents(await streamText(runId, 950)).events;
    expect(lineEvents(resumed).map((event) => event.data)).toEqual([
      ...text.slice(950),
      'late row one',
      'late row two',
    ]);
    expect(lineEvents(resumed).map((event) => Number(event.id))).toEqual(
      Array.from({ length: 1_502 - 950 }, (_, index) => 951 + index),
    );
    expect(finalEvent(resumed).event).toBe('end');
  });

  it('a client catching up slowly while the log is compacted under it gets every line once, in order, then end', async () => {
    const { runId, text, readToEnd } = await stalledReaderOfLargeRun('slow');
    expect(await compact(runId)).toMatchObject({ lines: text.length, complete: true });
    const events = await readToEnd();
    expect(lineEvents(events).map((event) => event.data)).toEqual(text);
    expect(lineEvents(events).map((event) => Number(event.id))).toEqual(text.map((_, index) => index + 1));
    expect(finalEvent(events).event).toBe('end');
  }, 120_000);
});

describe('Issue 35: masking is what was stored, so compaction keeps it: no sensitive value in a block, the stream unchanged', () => {
  it('a run whose lines carry a sensitive value: masked in the blocks and in the replay, as in the rows before', async () => {
    const secret = 'compaction-s3cret-value';
    await admin('POST', `${API}/namespaces/${TEAM_PROJECT}/variablesets`, {
      apiVersion: 'platform.dev/v1alpha1',
      kind: 'VariableSet',
      metadata: { name: 'history-masking' },
      spec: { variables: [{ name: 'token', sensitive: true, value: secret }] },
    }).then(expectStatus(201));
    const object = workspaceObject('history-masked');
    await admin('POST', `${API}/namespaces/${TEAM_PROJECT}/workspaces`, {
      ...object,
      spec: { ...(object.spec as object), variableSetRefs: [{ name: 'history-masking' }] },
    }).then(expectStatus(201));
    const run = await admin('POST', `/api/v1alpha1/projects/${TEAM_PROJECT}/workspaces/history-masked/runs`, {
      type: 'apply',
    }).then(expectStatus(201));
    const controller = (path: string, body: unknown) =>
      send(platform().gateway.url, platform().tokens.controller, 'POST', path, body).then(expectStatus(200));
    const claim = await controller('/internal/runs/claim', { project: TEAM_PROJECT, workspace: 'history-masked' });
    expect(claim.run.id).toBe(run.id);
    const text = Array.from({ length: 1_200 }, (_, index) =>
      index % 3 === 0 ? `token=${secret} line ${index + 1}` : `line ${index + 1}`,
    );
    await controller(`/internal/runs/${run.id}/logs`, { leaseId: claim.lease.id, firstSeq: 1, lines: text });
    await controller(`/internal/runs/${run.id}/phase`, { leaseId: claim.lease.id, phase: 'Succeeded' });
    const before = await streamText(run.id);
    expect(before).toContain('token=*** line 1\n');
    expect(before).not.toContain(secret);

    await compact(run.id);
    expect(await streamText(run.id)).toBe(before);
    const { rows } = await platform().database.pool.query(
      'SELECT first_seq, last_seq, encoding, body FROM run_log_blocks WHERE run_id = $1 ORDER BY first_seq',
      [run.id],
    );
    expect(rows).toHaveLength(3);
    const stored = rows.flatMap((row) =>
      linesOfBlock({
        firstSeq: Number(row.first_seq),
        lastSeq: Number(row.last_seq),
        encoding: row.encoding,
        body: row.body,
      }),
    );
    expect(stored).toEqual(text.map((line) => line.replace(secret, '***')));
  });
});

describe("Issue 35: late chunks after a run ended are refused as before, compacted or not; the run's lines are unchanged", () => {
  it("the controller's retry of its last chunk, and a chunk after it, are 409 LeaseNotHeld before and after compaction", async () => {
    const { runId } = await runWithLines(20, 'late');
    await finish(runId);
    const replay = await streamText(runId);
    for (const stage of ['before compaction', 'after compaction']) {
      const retry = await sendChunk(runId, 11, lines(20, 'late').slice(10));
      expect(retry.status, stage).toBe(409);
      expect(await retry.json(), stage).toMatchObject({
        reason: 'LeaseNotHeld',
        error: expect.stringContaining('the run is Succeeded'),
      });
      const late = await sendChunk(runId, 21, ['one line too late']);
      expect(late.status, stage).toBe(409);
      expect((await late.json()).reason, stage).toBe('LeaseNotHeld');
      expect(await streamText(runId), stage).toBe(replay);
      await compact(runId);
    }
  });
});

describe('Issue 35, item 2: a stream on a run whose log (or the run itself) retention removes ends with event: removed; the run says logRemovedAt', () => {
  it('the run JSON carries logRemovedAt (null, then when), as the OpenAPI schema of the run routes says', async () => {
    const { runId } = await runWithLines(10, 'json');
    await finish(runId);
    const runPath = `/api/v1alpha1/projects/${TEAM_PROJECT}/runs/${runId}`;
    expect(await admin('GET', runPath).then(expectStatus(200))).toMatchObject({ logRemovedAt: null });
    await finishedAgo(runId, 100 * DAY_MS);
    await removeExpired({ historyMs: 365 * DAY_MS, logMs: 90 * DAY_MS });
    const removed = await admin('GET', runPath).then(expectStatus(200));
    expect(Date.now() - Date.parse(removed.logRemovedAt)).toBeLessThan(60_000);
    const openapi = await fetch(`${platform().gateway.url}/openapi.json`).then((response) => response.json());
    const schema =
      openapi.paths['/api/v1alpha1/projects/{project}/runs/{run}'].get.responses['200'].content['application/json']
        .schema;
    expect(schema.required).toContain('logRemovedAt');
    expect(schema.properties.logRemovedAt).toMatchObject({ type: ['string', 'null'], format: 'date-time' });
  });

  it('a stream catching up when the log is removed gets what was sent, then removed (LogRemoved) naming its last id; a new stream gets removed at once; one that has every line gets end', async () => {
    const { runId, text, readToEnd } = await stalledReaderOfLargeRun('removed', true);
    await finishedAgo(runId, 100 * DAY_MS);
    expect(await removeExpired({ historyMs: 365 * DAY_MS, logMs: 90 * DAY_MS })).toMatchObject({ logsRemoved: 1 });

    const events = await readToEnd();
    const sent = lineEvents(events);
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.length).toBeLessThan(text.length);
    expect(sent.map((event) => event.data)).toEqual(text.slice(0, sent.length));
    const removed = finalEvent(events);
    expect(removed.event).toBe('removed');
    expect(JSON.parse(removed.data)).toMatchObject({
      reason: 'LogRemoved',
      lastEventId: String(sent.length),
      logRemovedAt: expect.any(String),
      message: expect.stringContaining('RUN_LOG_RETENTION'),
    });

    const fresh = parseEvents(await streamText(runId)).events;
    expect(fresh).toHaveLength(1);
    expect(fresh[0]!.event).toBe('removed');
    expect(JSON.parse(fresh[0]!.data)).toMatchObject({ reason: 'LogRemoved', lastEventId: '0' });
    const complete = parseEvents(await streamText(runId, text.length)).events;
    expect(complete.map((event) => event.event)).toEqual(['end']);
  }, 120_000);

  it('a stream catching up when the run itself is removed gets removed (RunRemoved)', async () => {
    const { runId, text, readToEnd } = await stalledReaderOfLargeRun('gone');
    await finishedAgo(runId, 400 * DAY_MS);
    expect(await removeExpired({ historyMs: 365 * DAY_MS, logMs: 90 * DAY_MS })).toMatchObject({ runsRemoved: 1 });

    const events = await readToEnd();
    const sent = lineEvents(events);
    expect(sent.map((event) => event.data)).toEqual(text.slice(0, sent.length));
    expect(finalEvent(events).event).toBe('removed');
    expect(JSON.parse(finalEvent(events).data)).toMatchObject({
      reason: 'RunRemoved',
      lastEventId: String(sent.length),
    });
    expect((await admin('GET', streamPath(runId))).status).toBe(404);
  }, 120_000);
});
