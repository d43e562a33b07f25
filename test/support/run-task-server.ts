// A run task server started by a test (issue 48), speaking HCP Terraform's run task protocol as an integration
// does: it checks X-TFC-Task-Signature (HMAC-SHA512 of the body with its key) and refuses a request without a
// good one, answers 200 at once, reads the plan's JSON when the request links it (`plan_json_api_url`), then calls
// back on `task_result_callback_url` with the request's access token (a JSON:API PATCH of `task-results`), as its
// `verdict` says. What it received and what its callbacks got are kept for the test to read.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the task answers for a request: a result, or nothing at all (a task that never answers). */
export type TaskVerdict =
  | { status: 'passed' | 'failed'; message: string; url?: string; outcomes?: unknown[]; runningFirst?: boolean }
  | { silent: true };

/** One request the server received. */
export interface ReceivedTaskRequest {
  payload: Record<string, any>;
  signature: string | undefined;
  signatureValid: boolean;
  /** The payload's `task_result_callback_url` and `run_log_api_url`, at the address the test's platform listens on. */
  callbackUrl: string;
  runLogUrl: string;
  /** The payload's `plan_json_api_url` on the platform (null when the request carried none). */
  planJsonUrl: string | null;
  /** What reading `plan_json_api_url` with the access token answered, as a task judging the plan does first. */
  planJson?: { status: number; body: string };
}

/** One callback the server sent, with the platform's answer. */
export interface SentCallback {
  status: number;
  body: string;
}

export interface RunTaskServer {
  url: string;
  received: ReceivedTaskRequest[];
  callbacks: SentCallback[];
  /** What it answers for runs of each Workspace (`workspace_name`); a Workspace not in it gets no answer at all. */
  verdicts: Map<string, TaskVerdict>;
  close(): Promise<void>;
}

/** The JSON:API document a task sends back. */
export function taskResultDocument(status: string, message: string, url?: string, outcomes: unknown[] = []) {
  return {
    data: {
      type: 'task-results',
      attributes: { status, message, ...(url ? { url } : {}) },
      relationships: { outcomes: { data: outcomes } },
    },
  };
}

/** PATCHes `callbackUrl` as a task does; resolves to the platform's status and body. */
export async function sendCallback(callbackUrl: string, token: string, document: unknown): Promise<SentCallback> {
  const response = await fetch(callbackUrl, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/vnd.api+json' },
    body: JSON.stringify(document),
  });
  return { status: response.status, body: await response.text() };
}

/**
 * Starts a task server on 127.0.0.1 that verifies signatures with `hmacKey` (none: it takes unsigned requests, as
 * HCP Terraform sends them for a task without a key). The test's gateway listens on a port
 * chosen when it starts, so its API_BASE_URL (what the payload's URLs are built on) cannot name it: the server
 * reaches the payload's paths at `platformUrl()`, as a task behind another route to the platform would.
 */
export async function startRunTaskServer(
  hmacKey: string | undefined,
  platformUrl: () => string,
): Promise<RunTaskServer> {
  const onPlatform = (url: string) => {
    const { pathname, search } = new URL(url);
    return `${platformUrl()}${pathname}${search}`;
  };
  const received: ReceivedTaskRequest[] = [];
  const callbacks: SentCallback[] = [];
  const state: Pick<RunTaskServer, 'verdicts'> = { verdicts: new Map() };
  const server = createServer(async (request, response) => {
    const body = await readBody(request);
    const signature = request.headers['x-tfc-task-signature'] as string | undefined;
    // A task configured without an HMAC key takes unsigned requests, as HCP Terraform sends them then.
    const expected = hmacKey === undefined ? undefined : createHmac('sha512', hmacKey).update(body).digest('hex');
    const signatureValid =
      expected === undefined ||
      (signature !== undefined &&
        signature.length === expected.length &&
        timingSafeEqual(Buffer.from(signature), Buffer.from(expected)));
    const payload = JSON.parse(body.toString('utf8')) as Record<string, any>;
    const planJsonUrl = payload.plan_json_api_url === null ? null : onPlatform(payload.plan_json_api_url);
    const entry: ReceivedTaskRequest = {
      payload,
      signature,
      signatureValid,
      callbackUrl: onPlatform(payload.task_result_callback_url),
      runLogUrl: onPlatform(payload.run_log_api_url),
      planJsonUrl,
    };
    if (!signatureValid) {
      received.push(entry);
      response.writeHead(401).end('bad signature');
      return;
    }
    response.writeHead(200).end();
    // What a task judging the plan does first: read the plan's JSON with the request's token (kept before the
    // request is listed as received, so a test that finds it finds what the read answered).
    if (planJsonUrl !== null) {
      const read = await fetch(planJsonUrl, { headers: { authorization: `Bearer ${payload.access_token}` } });
      entry.planJson = { status: read.status, body: await read.text() };
    }
    received.push(entry);
    const verdict = state.verdicts.get(payload.workspace_name) ?? { silent: true };
    if ('silent' in verdict) return;
    const callback = (status: string) =>
      sendCallback(
        onPlatform(payload.task_result_callback_url),
        payload.access_token,
        taskResultDocument(status, verdict.message, verdict.url, verdict.outcomes),
      ).then((sent) => callbacks.push(sent));
    if (verdict.runningFirst) await callback('running');
    await callback(verdict.status);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}/run-task`,
    received,
    callbacks,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
