// Issue 38, item 7: answers without an audit id. 413 and 431 answers carried no `Audit-Id` (docs: every
// answer); a 413 on an authenticated write was not audited (the adapter answered it before the chain);
// a 20 KB request URI got 431, not 414. Through `npm start`'s gateway (node:http, the container's path);
// test/system/foundation/every-adapter.test.ts sends the same through the functions-framework and Lambda.
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { AuditCapture } from '../../support/audit-capture.ts';
import { rawRequest } from '../../support/raw-http.ts';
import {
  API,
  OIDC_USERNAME,
  send,
  TEAM_PROJECT,
  usePlatform,
  workspaceObject,
} from '../../support/platform-fixture.ts';

const MAX_BODY_BYTES = 4096;
const AUDIT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const capture = new AuditCapture();
const platform = usePlatform({ MAX_REQUEST_BODY_BYTES: String(MAX_BODY_BYTES) }, { auditSinks: [capture] });
const workspaces = `${API}/namespaces/${TEAM_PROJECT}/workspaces`;
const oversized = () => ({ ...workspaceObject('oversized'), padding: 'x'.repeat(MAX_BODY_BYTES) });

/** Sends raw bytes in pieces, a pause between them (as reads arrive over a network), and answers the status line and headers. */
function sendInPieces(pieces: string[]): Promise<{ status: number; headers: string }> {
  const { port } = new URL(platform().gateway.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', async () => {
      for (const piece of pieces) {
        if (socket.destroyed) break;
        socket.write(piece);
        await new Promise((wait) => setTimeout(wait, 20));
      }
    });
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
      const end = received.indexOf('\r\n\r\n');
      if (end === -1) return;
      const head = received.slice(0, end);
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), headers: head });
      socket.destroy();
    });
    socket.on('error', () => {});
    socket.on('close', () => reject(new Error(`no answer: ${JSON.stringify(received.slice(0, 200))}`)));
  });
}

describe('A body over MAX_REQUEST_BODY_BYTES is answered by the chain once the caller is known: audited, with its Audit-Id', () => {
  it("an OIDC user's write: 413, and its event names the user, the verb and the object's collection", async () => {
    const response = await send(platform().gateway.url, platform().tokens.oidcUser, 'POST', workspaces, oversized());
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ reason: 'PayloadTooLarge' });
    expect(response.headers.get('audit-id')).toMatch(AUDIT_ID);
    expect(capture.completed(response)).toMatchObject({
      verb: 'create',
      user: { username: OIDC_USERNAME },
      objectRef: { resource: 'workspaces', namespace: TEAM_PROJECT },
      responseStatus: { code: 413, reason: 'PayloadTooLarge' },
    });
  });

  it('a chunked body (no Content-Length) over the limit: the same 413, the connection not cut', async () => {
    const body = JSON.stringify(oversized());
    const response = await fetch(`${platform().gateway.url}${workspaces}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${platform().tokens.admin}`, 'content-type': 'application/json' },
      body: new ReadableStream({
        start(controller) {
          for (let at = 0; at < body.length; at += 1000)
            controller.enqueue(new TextEncoder().encode(body.slice(at, at + 1000)));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(413);
    expect(capture.completed(response)).toMatchObject({ user: { username: 'admin' }, responseStatus: { code: 413 } });
  });

  it('without a token it is 401 first, as any request of an unknown caller', async () => {
    const response = await fetch(`${platform().gateway.url}${workspaces}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(oversized()),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('audit-id')).toMatch(AUDIT_ID);
  });
});

describe('A request target over 8 KiB is 414 UriTooLong, with an Audit-Id, however it arrives', () => {
  const target = (length: number) => {
    const path = `${API}/projects?labelSelector=`;
    return `${path}${'a'.repeat(length - path.length)}`;
  };

  it('8192 bytes are read; 8193 are 414', async () => {
    const token = { authorization: `Bearer ${platform().tokens.admin}` };
    expect((await rawRequest(platform().gateway.url, 'GET', target(8192), token)).status).not.toBe(414);
    const refused = await rawRequest(platform().gateway.url, 'GET', target(8193), token);
    expect([refused.status, JSON.parse(refused.text).reason]).toEqual([414, 'UriTooLong']);
    expect(refused.headers['audit-id']).toMatch(AUDIT_ID);
  });

  it('20 KB in one read, or in pieces, is 414 (node counts it against the header limit: it was 431)', async () => {
    const whole = await rawRequest(platform().gateway.url, 'GET', target(20_000));
    expect([whole.status, JSON.parse(whole.text).reason]).toEqual([414, 'UriTooLong']);
    expect(whole.headers['audit-id']).toMatch(AUDIT_ID);
    const long = target(20_000);
    const pieces = await sendInPieces([
      `GET ${long.slice(0, 6000)}`,
      long.slice(6000, 12_000),
      long.slice(12_000),
      ' HTTP/1.1\r\nHost: x\r\n\r\n',
    ]);
    expect(pieces.status).toBe(414);
    expect(pieces.headers).toMatch(/\r\nAudit-Id: [0-9a-f-]{36}\r\n/);
  });
});

describe('Headers over MAX_REQUEST_HEADER_BYTES are 431, with an Audit-Id', () => {
  it('one header of 20 KB, and cookies arriving in pieces', async () => {
    const answer = await rawRequest(platform().gateway.url, 'GET', `${API}/projects`, {
      'x-padding': 'b'.repeat(20_000),
    });
    expect([answer.status, JSON.parse(answer.text).reason]).toEqual([431, 'RequestHeaderFieldsTooLarge']);
    expect(answer.headers['audit-id']).toMatch(AUDIT_ID);
    const cookies = Array.from({ length: 1500 }, (_, index) => `c${index}=value-${index}`).join('; ');
    const pieces = await sendInPieces([
      `GET ${API}/projects HTTP/1.1\r\nHost: x\r\nCookie: `,
      cookies.slice(0, 9000),
      cookies.slice(9000),
      '\r\n\r\n',
    ]);
    expect(pieces.status).toBe(431);
    expect(pieces.headers).toMatch(/\r\nAudit-Id: [0-9a-f-]{36}\r\n/);
  });
});

describe("The gateway's own answers carry an Audit-Id too", () => {
  it('/bridge/* without a bridge: 404 BridgeNotConfigured with an Audit-Id', async () => {
    const response = await fetch(`${platform().gateway.url}/bridge/login`);
    expect(response.status).toBe(404);
    expect(response.headers.get('audit-id')).toMatch(AUDIT_ID);
  });
});
