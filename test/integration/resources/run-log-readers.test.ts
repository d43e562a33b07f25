// Issue 20, item 4 through HTTP: the send buffer judges what a client has not read, not the size of
// one batch, so one large append reaches every reader that keeps up, and none is told to resume.
// (A client that stops reading still gets `event: resume`: run-log-streams.test.ts.)
import { describe, expect, it } from 'vitest';
import { readEvents } from '../../support/server-sent-events.ts';
import { heldRuns } from '../../support/held-runs.ts';
import { TEAM_PROJECT, usePlatform } from '../../support/platform-fixture.ts';

const READERS = 20;
// The default send buffer (RUN_LOG_SEND_BUFFER_BYTES, 256 KiB): the append below is four times as large.
const platform = usePlatform({ RUN_LOG_MAX_STREAMS_PER_PRINCIPAL: String(READERS) });
const { runningRun, appendLines } = heldRuns(platform, 'readers');

/**
 * A stream read as fast as the socket delivers, until it has `count` line events or any named event
 * (`resume`, `end`, `expired`: it closes after one); `following` resolves once the first line arrived.
 */
async function fullSpeedReader(runId: string, count: number) {
  const response = await fetch(`${platform().gateway.url}/api/v1alpha1/run-logs/${TEAM_PROJECT}/${runId}`, {
    headers: { authorization: `Bearer ${platform().tokens.admin}` },
  });
  expect(response.status).toBe(200);
  let firstLine = () => {};
  const following = new Promise<void>((resolve) => (firstLine = resolve));
  const events = readEvents(response, (seen) => {
    if (seen.length > 0) firstLine();
    return seen.length >= count || seen.some((event) => event.event !== undefined);
  });
  return { following, events };
}

describe('Issue 20: one large append never cuts off clients reading at full speed; the send buffer judges what a client has not read', () => {
  it(`a 1 MB append (500 lines of 2 KB) reaches ${READERS} full-speed readers, every line once, and none gets event: resume`, async () => {
    const runId = await runningRun();
    const lines = Array.from({ length: 500 }, (_, index) => `line ${index + 2} ${'x'.repeat(2_000)}`);
    const readers = await Promise.all(Array.from({ length: READERS }, () => fullSpeedReader(runId, 1 + lines.length)));
    // Line 1 reaching every reader shows each stream follows the run live (not catching up from the database).
    await appendLines(runId, ['started']);
    await Promise.all(readers.map((reader) => reader.following));

    await appendLines(runId, lines);
    for (const reader of readers) {
      const events = await reader.events;
      expect(events.filter((event) => event.event !== undefined)).toEqual([]);
      expect(events.map((event) => Number(event.id))).toEqual(Array.from({ length: 501 }, (_, index) => index + 1));
      expect(events.slice(1).every((event) => event.data.startsWith(`line ${event.id} x`))).toBe(true);
    }
  }, 90_000);
});
