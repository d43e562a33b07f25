// Reading request bodies and writing JSON answers on node:http.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { badRequest } from './status.ts';
import type { KubeStatusError } from './status.ts';

/** An answer of a handler: HTTP status and JSON body. */
export interface JsonReply {
  status: number;
  /** Serialized as JSON, except a Buffer, which is sent as is (the protobuf OpenAPI document). */
  body: unknown;
  /** Defaults to application/json. */
  contentType?: string;
  /** Sent as `Warning` headers (RFC 7234 form, code 299, as kube-apiserver sends them). */
  warnings?: string[];
}

/** The raw request body as text. */
export async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Parses a JSON body; malformed JSON is a 400 like the real decoder's. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw badRequest(`couldn't get version/kind; json parse error: ${(error as Error).message}`);
  }
}

/** Writes a JSON answer. */
export function sendJson(response: ServerResponse, reply: JsonReply): void {
  const text = Buffer.isBuffer(reply.body) ? reply.body : JSON.stringify(reply.body);
  const warnings = (reply.warnings ?? []).map((warning) => `299 - ${JSON.stringify(warning)}`);
  response.writeHead(reply.status, {
    'Content-Type': reply.contentType ?? 'application/json',
    'Content-Length': Buffer.byteLength(text),
    ...(warnings.length > 0 ? { Warning: warnings } : {}),
  });
  response.end(text);
}

/** Writes a failure as a Kubernetes Status. */
export function sendStatus(response: ServerResponse, error: KubeStatusError): void {
  sendJson(response, { status: error.code, body: error.toStatus() });
}
