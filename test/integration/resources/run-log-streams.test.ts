import { describe, expect, it } from 'vitest';
import { OTHER_SIGNING_KEY, adminClaims, signToken } from '../../support/admin-fixtures.ts';
import { mountedAdminSecret } from '../../support/mounted-admin-secret.ts';
import {
  chunkedBody,
  openStalledStream,
  parseEvents,
  readEvents,
  type SseEvent,
} from '../../support/server-sent-events.ts';
import { heldRuns } from '../../support/held-runs.ts';
import { API, OIDC_USER, TEAM_PROJECT, send, usePlatform } from '../../support/platform-fixture.ts';

const MAX_STREAMS = 3;
const SEND_BUFFER_BYTES = 16 * 1024;
const API_BASE_URL = 'https://platform-api.test';
// Generous bounds: events are awaited, never timed tightly.
const EVENT_BOUND_MS = 15_000;

const adminSecret = await mountedAdminSecret('run-log-streams-secret-');

const platform = usePlatform({
  API_BASE_URL,
  ADMIN_SECRET_SOURCE: `file:${adminSecret.folder}`,
  ADMIN_SECRET_POLL_INTERVAL: '200ms',
  RUN_LOG_MAX_STREAMS_PER_PRINCIPAL: String(MAX_STREAMS),
  RUN_LOG_SEND_BUFFER_BYTES: String(SEND_BUFFER_BYTES),
});
const streamPath = (runId: string) => `/api/v1alpha1/run-logs/${TEAM_PROJECT}/${runId}`;
const { runningRun, appendLines } = heldRuns(platform, 'streams');

const openWithHeader = (runId: string, token: string) =>
  fetch(`${platform().gateway.url}${streamPath(runId)}`, { headers: { authorization: `Bearer ${token}` } });
const openWithQuery = (runId: string, token: string) =>
  fetch(`${platform().gateway.url}${streamPath(runId)}?access_token=${token}`);

/** Reads until the stream closes (bounded), returning its events. */
async function eventsUntilClosed(response: Response): Promise<SseEvent[]> {
  expect(response.status).toBe(200);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error('the stream did not close')), EVENT_BOUND_MS)),
  );
  try {
    return await Promise.race([readEvents(response, () => false), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function lastEvent(events: SseEvent[]): { event?: string; data: Record<string, unknown> } {
  const last = events[events.length - 1]!;
  return { event: last.event, data: JSON.parse(last.data) };
}

describe('Every run-log stream ends when the token that opened it expires, with event: expired saying why', () => {
  it('an admin token (Authorization header) with a short lifetime: the stream gets its lines, then expired at exp, then closes', async () => {
    const runId = await runningRun(['before expiry']);
    const token = await signToken(adminClaims(API_BASE_URL, 2));
    const events = await eventsUntilClosed(await openWithHeader(runId, token));
    expect(events[0]).toEqual({ id: '1', data: 'before expiry' });
    expect(lastEvent(events)).toEqual({
      event: 'expired',
      data: { reason: 'TokenExpired', message: expect.any(String), lastEventId: '1' },
    });
  });

  it('an OIDC ID token (?access_token=) with a short lifetime ends the same way', async () => {
    const runId = await runningRun(['seen']);
    platform().oidcProvider.idTokenTtlSeconds = 2;
    const token = await platform().oidcProvider.login(OIDC_USER.sub);
    platform().oidcProvider.idTokenTtlSeconds = 3600;
    const events = await eventsUntilClosed(await openWithQuery(runId, token));
    expect(lastEvent(events)).toMatchObject({ event: 'expired', data: { reason: 'TokenExpired', lastEventId: '1' } });
  });
});

describe('Admin streams end within the secret poll interval when the admin account is disabled or its signing key rotates', () => {
  it('disabling the admin account ends admin streams (AdminAccountDisabled) and leaves OIDC streams open', async () => {
    const runId = await runningRun();
    const adminStream = await openWithQuery(runId, platform().tokens.admin);
    const oidcStream = await openWithQuery(runId, platform().tokens.oidcUser);
    expect(oidcStream.status).toBe(200);
    await adminSecret.write({ ADMIN_ACCOUNT_ENABLED: 'false' });
    try {
      expect(lastEvent(await eventsUntilClosed(adminStream))).toMatchObject({
        event: 'expired',
        data: { reason: 'AdminAccountDisabled' },
      });
      await appendLines(runId, ['still streaming']);
      expect(await readEvents(oidcStream, (seen) => seen.length > 0)).toEqual([{ id: '1', data: 'still streaming' }]);
    } finally {
      await restoreAdminSecret();
    }
  });

  it('rotating the signing key ends streams opened with a token of the old key (SigningKeyRotated)', async () => {
    const runId = await runningRun();
    const token = platform().tokens.admin;
    const stream = await openWithHeader(runId, token);
    await adminSecret.write({ ADMIN_ACCOUNT_TOKEN_SIGNING_KEY: OTHER_SIGNING_KEY });
    try {
      expect(lastEvent(await eventsUntilClosed(stream))).toMatchObject({
        event: 'expired',
        data: { reason: 'SigningKeyRotated' },
      });
    } finally {
      await restoreAdminSecret();
    }
  });
});

/** Puts the original secret back and waits until it is in force: the fixture's admin token (old key, enabled) works again. */
async function restoreAdminSecret(): Promise<void> {
  await adminSecret.write();
  const deadline = Date.now() + EVENT_BOUND_MS;
  while (
    (await send(platform().gateway.url, platform().tokens.admin, 'GET', '/api/v1alpha1/auth/whoami')).status !== 200
  ) {
    if (Date.now() > deadline) throw new Error('the restored admin secret did not come into force');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('A client that stops reading is closed with event: resume past the send buffer, and resuming with Last-Event-ID loses nothing', () => {
  it('never reads while megabytes of lines arrive: closed with resume; resuming from its last id gets every line once', async () => {
    const token = platform().tokens.admin;
    const runId = await runningRun();
    const stalled = await openStalledStream(platform().gateway.url, streamPath(runId), {
      authorization: `Bearer ${token}`,
      connection: 'close',
    });
    // Far more than the socket buffers of both ends hold (a few MB on loopback) plus the send buffer.
    const appends = 80;
    const linesPerAppend = 100;
    const padding = 'x'.repeat(1000);
    for (let append = 0; append < appends; append++) {
      const lines = Array.from(
        { length: linesPerAppend },
        (_, index) => `line ${append * linesPerAppend + index + 1} ${padding}`,
      );
      await appendLines(runId, lines);
    }
    const total = appends * linesPerAppend;
    const response = await stalled.readToEnd();
    expect(response.slice(0, response.indexOf('\r\n'))).toBe('HTTP/1.1 200 OK');
    const { events } = parseEvents(chunkedBody(response));
    const resume = events[events.length - 1]!;
    expect(resume.event).toBe('resume');
    const lastEventId = JSON.parse(resume.data).lastEventId as string;
    const received = events.slice(0, -1);
    // Cut short, in order and without gaps up to the id the resume event names.
    expect(received.length).toBeLessThan(total);
    expect(received.map((event) => event.id)).toEqual(
      Array.from({ length: received.length }, (_, index) => String(index + 1)),
    );
    expect(lastEventId).toBe(String(received.length));

    const resumed = await fetch(`${platform().gateway.url}${streamPath(runId)}`, {
      headers: { authorization: `Bearer ${token}`, 'last-event-id': lastEventId },
    });
    expect(resumed.status).toBe(200);
    const rest = await readEvents(resumed, (seen) => seen.length >= total - received.length);
    const ids = [...received, ...rest].map((event) => Number(event.id));
    expect(ids).toEqual(Array.from({ length: total }, (_, index) => index + 1));
    expect(rest.every((event) => event.data.startsWith(`line ${event.id} `))).toBe(true);
  }, 60_000);
});

describe('One principal may hold at most RUN_LOG_MAX_STREAMS_PER_PRINCIPAL streams at once, across runs; beyond it 429 with Retry-After', () => {
  it('answers 429 TooManyStreams past the cap, lets other principals in, and frees a slot when a stream closes', async () => {
    const token = platform().tokens.admin;
    const runs = await Promise.all(Array.from({ length: MAX_STREAMS + 1 }, () => runningRun()));
    const open = await Promise.all(runs.slice(0, MAX_STREAMS).map((runId) => openWithHeader(runId, token)));
    for (const response of open) expect(response.status).toBe(200);

    const refused = await openWithHeader(runs[MAX_STREAMS]!, token);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(await refused.json()).toMatchObject({
      reason: 'TooManyStreams',
      error: expect.stringContaining(String(MAX_STREAMS)),
    });
    const otherPrincipal = await openWithQuery(runs[MAX_STREAMS]!, platform().tokens.oidcUser);
    expect(otherPrincipal.status).toBe(200);

    await open[0]!.body!.cancel();
    const deadline = Date.now() + EVENT_BOUND_MS;
    let retried: Response;
    for (;;) {
      retried = await openWithHeader(runs[MAX_STREAMS]!, token);
      if (retried.status !== 429 || Date.now() > deadline) break;
      await retried.body?.cancel();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(retried.status).toBe(200);
    for (const response of [...open.slice(1), retried, otherPrincipal]) await response.body!.cancel();
  });
});

describe('A watch of the resources API (kubectl get -w) ends, like a run-log stream, as soon as the admin account is disabled or its signing key rotates', () => {
  it.each([
    ['the admin account is disabled', { ADMIN_ACCOUNT_ENABLED: 'false' }],
    ['the signing key rotates', { ADMIN_ACCOUNT_TOKEN_SIGNING_KEY: OTHER_SIGNING_KEY }],
  ])('an admin watch closes when %s', async (_, change) => {
    const response = await fetch(`${platform().gateway.url}${API}/namespaces/${TEAM_PROJECT}/workspaces?watch=true`, {
      headers: { authorization: `Bearer ${platform().tokens.admin}` },
    });
    expect(response.status).toBe(200);
    const closed = response.text();
    await adminSecret.write(change);
    try {
      let timer: NodeJS.Timeout | undefined;
      const bound = new Promise<never>(
        (_, reject) => (timer = setTimeout(() => reject(new Error('the watch did not close')), EVENT_BOUND_MS)),
      );
      await Promise.race([closed, bound]).finally(() => clearTimeout(timer));
    } finally {
      await restoreAdminSecret();
    }
  });
});
