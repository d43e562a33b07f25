// Issue 26 through HTTP: a run's sensitive values (from a VariableSet's Secret, and inline ones the
// server moved there) never reach its log: the stored rows, the live and the replayed run-log
// streams hold `***` wherever a value stood, plain or encoded, whole or split over lines and chunks.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resolveRunVariables } from '../../../functions/internal/run-variables.ts';
import { runLogMasking } from '../../../shared/domain/runs/logs/run-log-masking.ts';
import type { LeaseHolder } from '../../../shared/domain/runs/leases/run-leases.ts';
import { testRuns } from '../../support/test-runs.ts';
import { capturingLogger, silentLogger } from '../../support/function-servers.ts';
import { readEvents, type SseEvent } from '../../support/server-sent-events.ts';
import {
  API,
  CONTROLLER_ACCOUNT_USER,
  TEAM_PROJECT,
  expectStatus,
  send,
  usePlatform,
  workspaceObject,
} from '../../support/platform-fixture.ts';

const logger = capturingLogger();
const platform = usePlatform({ LOG_LEVEL: 'debug' }, { logger });
const FROM_SECRET = 'sk_live_51H8xQ2eZvKYlo2C/9+Tq';
const INLINE = 'inline p@ss "word" & more';
const SHORT = '42';

const admin = (method: string, path: string, body?: unknown) =>
  send(platform().gateway.url, platform().tokens.admin, method, path, body);
/** The lease holder the controller's token authenticates as, for the masking called directly below. */
const CONTROLLER: LeaseHolder = { principal: CONTROLLER_ACCOUNT_USER, principalType: 'serviceaccount' };
const controller = (method: string, path: string, body?: unknown) =>
  send(platform().gateway.url, platform().tokens.controller, method, path, body);
const base64 = (text: string) => Buffer.from(text).toString('base64');
const jsonEscaped = (text: string) => JSON.stringify(text).slice(1, -1);

let workspaces = 0;
let setUp = false;

/** Once: a VariableSet whose value is in its Secret (written there first), one with inline sensitive values. */
async function variableSets(): Promise<void> {
  if (setUp) return;
  setUp = true;
  await platform().clusterAdmin.send({
    method: 'POST',
    path: `/api/v1/namespaces/${TEAM_PROJECT}/secrets`,
    body: {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'variableset-masking-vault', namespace: TEAM_PROJECT },
      data: { 'api-token': base64(FROM_SECRET) },
    },
  });
  const variableSet = (name: string, variables: unknown[]) => ({
    apiVersion: 'platform.dev/v1alpha1',
    kind: 'VariableSet',
    metadata: { name },
    spec: { variables },
  });
  await admin(
    'POST',
    `${API}/namespaces/${TEAM_PROJECT}/variablesets`,
    variableSet('masking-vault', [
      { name: 'api_token', valueFrom: { secretKeyRef: { name: 'variableset-masking-vault', key: 'api-token' } } },
    ]),
  ).then(expectStatus(201));
  await admin(
    'POST',
    `${API}/namespaces/${TEAM_PROJECT}/variablesets`,
    variableSet('masking-inline', [
      { name: 'db_password', sensitive: true, value: INLINE },
      { name: 'pin', sensitive: true, value: SHORT },
      { name: 'region', value: 'eu-west-1' },
    ]),
  ).then(expectStatus(201));
}

/** A run of a Workspace of its own using both VariableSets, claimed by the controller. */
async function claimedRun(): Promise<{ runId: string; leaseId: string; claim: Record<string, unknown> }> {
  await variableSets();
  const workspace = `masking-${++workspaces}`;
  const object = workspaceObject(workspace);
  await admin('POST', `${API}/namespaces/${TEAM_PROJECT}/workspaces`, {
    ...object,
    spec: { ...(object.spec as object), variableSetRefs: [{ name: 'masking-vault' }, { name: 'masking-inline' }] },
  }).then(expectStatus(201));
  const run = await admin('POST', `/api/v1alpha1/projects/${TEAM_PROJECT}/workspaces/${workspace}/runs`, {
    type: 'apply',
  }).then(expectStatus(201));
  const claim = await controller('POST', '/internal/runs/claim', {
    project: TEAM_PROJECT,
    workspace,
    leaseSeconds: 600,
  }).then(expectStatus(200));
  expect(claim.run.id).toBe(run.id);
  return { runId: run.id, leaseId: claim.lease.id, claim };
}

const append = (runId: string, leaseId: string, firstSeq: number, lines: string[]) =>
  controller('POST', `/internal/runs/${runId}/logs`, { leaseId, firstSeq, lines }).then(expectStatus(200));

async function storedLines(runId: string): Promise<string[]> {
  const { rows } = await platform().database.pool.query<{ line: string }>(
    'SELECT line FROM run_log_lines WHERE run_id = $1 ORDER BY seq',
    [runId],
  );
  return rows.map((row) => row.line);
}

const openStream = (runId: string) =>
  fetch(`${platform().gateway.url}/api/v1alpha1/run-logs/${TEAM_PROJECT}/${runId}`, {
    headers: { authorization: `Bearer ${platform().tokens.admin}` },
  });
const linesOf = (events: SseEvent[]) => events.filter((event) => event.event === undefined).map((event) => event.data);
const streamedLines = async (response: Response, count: number) =>
  linesOf(await readEvents(response, (events) => linesOf(events).length >= count));

describe('issue 26: sensitive values never reach a run log', () => {
  it('the claim names the sensitive values too short to mask, never their values, as its OpenAPI schema says', async () => {
    const { claim } = await claimedRun();
    expect(claim.unmaskedSensitiveValues).toEqual(['pin']);
    expect(JSON.stringify(claim)).not.toContain(FROM_SECRET);
    const openapi = await fetch(`${platform().gateway.url}/openapi.json`).then((response) => response.json());
    const answer = openapi.paths['/internal/runs/claim'].post.responses['200'].content['application/json'].schema;
    expect(answer.required).toContain('unmaskedSensitiveValues');
    expect(answer.properties.unmaskedSensitiveValues).toMatchObject({ type: 'array', items: { type: 'string' } });
  });

  it('masks each value plain, base64, URL-encoded, JSON-escaped, over two lines and over two chunks, in the stored rows and every stream; a resent chunk stays a duplicate', async () => {
    const { runId, leaseId } = await claimedRun();
    const live = await openStream(runId);
    const first = [
      `token=${FROM_SECRET} password=${INLINE}`,
      `b64 ${base64(FROM_SECRET)} url-safe ${Buffer.from(INLINE).toString('base64url')}`,
      `Authorization: Basic ${base64(`admin:${FROM_SECRET}`)}`,
      `url ?password=${encodeURIComponent(INLINE)}&x=1`,
      `json {"password":"${jsonEscaped(INLINE)}"}`,
      `wrapped ${FROM_SECRET.slice(0, 12)}`,
      `${FROM_SECRET.slice(12)} end`,
      `short pin ${SHORT} stays`,
      `chunk ends with ${INLINE.slice(0, 10)}`,
    ];
    const second = [`${INLINE.slice(10)} continues`, 'clean line'];
    expect(await append(runId, leaseId, 1, first)).toMatchObject({ duplicate: false, nextSeq: 10 });
    expect(await append(runId, leaseId, 10, second)).toMatchObject({ duplicate: false, nextSeq: 12 });
    // A controller whose answers were lost sends both chunks again with the same raw text.
    expect(await append(runId, leaseId, 1, first)).toMatchObject({ duplicate: true });
    expect(await append(runId, leaseId, 10, second)).toMatchObject({ duplicate: true });

    const expected = [
      'token=*** password=***',
      'b64 *** url-safe ***',
      `Authorization: Basic ${base64('admin:')}***`,
      'url ?password=***&x=1',
      'json {"password":"***"}',
      'wrapped ***',
      '*** end',
      `short pin ${SHORT} stays`,
      'chunk ends with ***',
      '*** continues',
      'clean line',
    ];
    expect(await storedLines(runId)).toEqual(expected);
    expect(await streamedLines(live, expected.length)).toEqual(expected);
    expect(await streamedLines(await openStream(runId), expected.length)).toEqual(expected);
    expect(logger.lines.join('\n')).not.toContain(FROM_SECRET);
    expect(logger.lines.join('\n')).not.toContain(INLINE);
  });

  it('issue 38 item 9: masks form encoding (+ for a space), lower-case %xx, encodeURI, JSON with \\/, and a value split across a \\r\\n line break', async () => {
    const { runId, leaseId } = await claimedRun();
    const lowerHex = (text: string) => text.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase());
    const formEncoded = (text: string) => new URLSearchParams({ v: text }).toString().slice(2);
    const lines = [
      `form ${formEncoded(INLINE)} and ${formEncoded(FROM_SECRET)}`,
      `client ?q=${encodeURIComponent(INLINE).replaceAll('%20', '+')}`,
      `lower ${lowerHex(encodeURIComponent(FROM_SECRET))} ${lowerHex(formEncoded(INLINE))}`,
      `uri https://x.example/?q=${encodeURI(INLINE)}`,
      `php {"token":"${jsonEscaped(FROM_SECRET).replaceAll('/', '\\/')}"}`,
      `crlf wrapped ${FROM_SECRET.slice(0, 9)}\r`,
      `${FROM_SECRET.slice(9)} after\r`,
      `one line ${INLINE.slice(0, 8)}\r\n${INLINE.slice(8)} end`,
    ];
    await append(runId, leaseId, 1, lines);
    const stored = await storedLines(runId);
    expect(stored).toEqual([
      'form *** and ***',
      'client ?q=***',
      'lower *** ***',
      'uri https://x.example/?q=***',
      'php {"token":"***"}',
      'crlf wrapped ***\r',
      '*** after\r',
      'one line ***\r\n*** end',
    ]);
    for (const value of [FROM_SECRET, INLINE]) expect(stored.join('').replace(/[\r\n]/g, '')).not.toContain(value);
  });

  it('issue 20: pipelined chunks are masked in the order of their lines, so a value split over them leaves nothing behind', async () => {
    const { runId, leaseId } = await claimedRun();
    // Both sent before either is answered; the rest of the value (3 characters) is masked only with
    // the carry the first chunk leaves, so the second must be masked after the first was stored.
    const [first, second] = await Promise.all([
      append(runId, leaseId, 1, [`pipelined ${FROM_SECRET.slice(0, -3)}`]),
      append(runId, leaseId, 2, [`${FROM_SECRET.slice(-3)} after`]),
    ]);
    expect([first.duplicate, second.duplicate]).toEqual([false, false]);
    expect(await storedLines(runId)).toEqual(['pipelined ***', '*** after']);
  });

  it('another replica (or this one after a restart) resolves the values again and masks the rest of a value split over chunks', async () => {
    const { runId, leaseId } = await claimedRun();
    await append(runId, leaseId, 1, [`first half ${FROM_SECRET.slice(0, 14)}`]);
    // A second process: its own masking, the same database and cluster, no memory of the claim.
    const store = testRuns(platform().database.pool);
    const replica = runLogMasking(
      async () => store.leases,
      async () => store.logChunks,
      async (run) =>
        (await resolveRunVariables(platform().clusterAdmin, run.project, run.workspace))
          .filter((variable) => variable.sensitive)
          .map(({ name, value }) => ({ name, value })),
      silentLogger,
    );
    await replica.append(runId, leaseId, CONTROLLER, 2, [`${FROM_SECRET.slice(14)} second half, then ${INLINE}`]);
    expect(await storedLines(runId)).toEqual(['first half ***', '*** second half, then ***']);
  });

  it('a process that cannot resolve the values (cluster unreachable) refuses the chunk rather than store it unmasked', async () => {
    const { runId, leaseId } = await claimedRun();
    const store = testRuns(platform().database.pool);
    const cut = runLogMasking(
      async () => store.leases,
      async () => store.logChunks,
      async () => {
        throw new Error('connect ECONNREFUSED');
      },
      silentLogger,
    );
    await expect(cut.append(runId, leaseId, CONTROLLER, 1, [`token=${FROM_SECRET}`])).rejects.toThrow('ECONNREFUSED');
    expect(await storedLines(runId)).toEqual([]);
  });

  it('property: whatever chunks carry the values, no stored line holds any of them (or their encodings)', async () => {
    const { runId, leaseId } = await claimedRun();
    const forms = [FROM_SECRET, INLINE].flatMap((value) => [
      value,
      base64(value),
      encodeURIComponent(value),
      jsonEscaped(value),
    ]);
    let nextSeq = 1;
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.tuple(fc.string({ maxLength: 6 }), fc.constantFrom(...forms), fc.nat(40), fc.string({ maxLength: 6 })),
          { minLength: 1, maxLength: 4 },
        ),
        fc.nat(3),
        async (pieces, breakAt) => {
          // Each form between random text, cut at a random place into two lines.
          const lines = pieces.flatMap(([before, form, cut, after]) => {
            const text = `${before}${form}${after}`;
            const at = Math.min(cut, text.length);
            return [text.slice(0, at), text.slice(at)];
          });
          const at = Math.min(breakAt + 1, lines.length - 1);
          const chunks = at > 0 ? [lines.slice(0, at), lines.slice(at)] : [lines];
          for (const chunk of chunks) {
            await append(runId, leaseId, nextSeq, chunk);
            nextSeq += chunk.length;
          }
          const stored = await storedLines(runId);
          for (const form of forms) {
            expect(stored.join('')).not.toContain(form);
          }
        },
      ),
      { numRuns: 25 },
    );
  });
});
