import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type pg from 'pg';
import { loadOutboundSettings, type OutboundSettings } from '../../shared/base/config/outbound-settings.ts';
import type { OutboundReceivers } from '../../shared/domain/outbound/outbound-engine.ts';
import type { OutboxEvent } from '../../shared/domain/outbound/outbox-event.ts';
import type { NewRun } from '../../shared/domain/runs/run.ts';
import type { LeaseHolder } from '../../shared/domain/runs/leases/run-leases.ts';

/** A request a test receiver got. */
export interface ReceivedRequest {
  /** The request's path and query, as sent. */
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  at: number;
}

/** A real HTTP receiver on 127.0.0.1, started by the test; `answer` decides each reply (200 by default). */
export interface TestReceiver {
  url: string;
  received: ReceivedRequest[];
  answer: (request: ReceivedRequest, response: ServerResponse) => void;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<TestReceiver> {
  const receiver: Omit<TestReceiver, 'url' | 'close'> = {
    received: [],
    answer: (_request, response) => response.end('ok'),
  };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const received = {
        path: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      receiver.received.push(received);
      receiver.answer(received, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}/hook`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

/** The settings of the tests: fast back-off, short timeouts, and this machine's receivers allowed explicitly. */
export function testOutboundSettings(overrides: Record<string, string> = {}): OutboundSettings {
  return loadOutboundSettings({
    OUTBOUND_RETRY_BASE: '50ms',
    OUTBOUND_RETRY_MAX: '400ms',
    OUTBOUND_MAX_ATTEMPTS: '3',
    OUTBOUND_TIMEOUT: '1s',
    OUTBOUND_ALLOWED_CIDRS: '127.0.0.1/32',
    // Tests sweep one after another and expect each sweep to see the cluster's latest changes.
    OUTBOUND_SOURCE_INTERVAL: '0s',
    ...overrides,
  });
}

/**
 * A receiver family of the test's own: every event goes to every receiver in `receivers` (name to URL), as
 * a JSON POST carrying the stable event id in `x-event-id` and the attempt in `x-attempt`.
 */
export function testReceivers(receivers: Map<string, string>): OutboundReceivers {
  return {
    family: 'test',
    receiversOf: async () => [...receivers.keys()],
    requestFor: async (receiver: string, event: OutboxEvent, attempt) => {
      const url = receivers.get(receiver);
      if (url === undefined) return { drop: `receiver ${receiver} is gone` };
      return {
        request: {
          url,
          headers: {
            'content-type': 'application/json',
            'x-event-id': event.id,
            'x-attempt': String(attempt.attempt),
          },
          body: JSON.stringify({ type: event.type, subject: event.subject, data: event.data }),
        },
      };
    },
  };
}

export const CONTROLLER: LeaseHolder = {
  principal: 'system:serviceaccount:platform:controller',
  principalType: 'serviceaccount',
};

export function newRun(workspace = 'web'): NewRun {
  return { project: 'shop', workspace, type: 'plan', principal: 'admin', principalType: 'admin' };
}

/** A delivery's state and attempts, by the event's id and the receiver's key. */
export async function deliveriesOf(
  pool: pg.Pool,
  receiver: string,
): Promise<{ eventId: string; type: string; state: string; attempts: number }[]> {
  const { rows } = await pool.query(
    `SELECT d.event_id AS "eventId", e.type, d.state, d.attempts FROM outbound_deliveries d
     JOIN outbox_events e ON e.id = d.event_id WHERE d.receiver = $1 ORDER BY d.id`,
    [receiver],
  );
  return rows;
}

/** The attempts logged for a receiver, oldest first. */
export async function attemptsOf(
  pool: pg.Pool,
  receiver: string,
): Promise<
  { attempt: number; startedAt: Date; statusCode: number | null; error: string | null; answerHead: string }[]
> {
  const { rows } = await pool.query(
    `SELECT attempt, started_at AS "startedAt", status_code AS "statusCode", error, answer_head AS "answerHead"
     FROM outbound_attempts WHERE receiver = $1 ORDER BY started_at, attempt`,
    [receiver],
  );
  return rows;
}
