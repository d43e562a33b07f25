import { apiError } from './error-catalogue.ts';

/**
 * Kubernetes' protobuf encoding of a request body, read into the JSON object the same kind has in
 * JSON, so one schema judges both. kubectl sends built-in kinds (a SelfSubjectAccessReview) as
 * `application/vnd.kubernetes.protobuf` and accepts JSON back. Only what a route declares is read:
 * a message's fields by number, each a string or a nested message. A field the declaration does not
 * name is kept as `field<N>` (its bytes or number), so the route's schema refuses it by name rather
 * than the server ignoring an option the client sent.
 */
export const KUBERNETES_PROTOBUF = 'application/vnd.kubernetes.protobuf';

/** A message: its fields by number. */
export type ProtobufMessage = { readonly [field: number]: ProtobufField };
/** A field: a string unless it is a nested `message` or, in the envelope, `bytes` kept as they are. */
export type ProtobufField = { readonly name: string; readonly message?: ProtobufMessage; readonly bytes?: boolean };

/** The four bytes before every Kubernetes protobuf object ("k8s" and a zero). */
const MAGIC = [0x6b, 0x38, 0x73, 0x00];

/** runtime.Unknown, the envelope: its TypeMeta, the object's bytes, and how they are encoded. */
const ENVELOPE: ProtobufMessage = {
  1: { name: 'typeMeta', message: { 1: { name: 'apiVersion' }, 2: { name: 'kind' } } },
  2: { name: 'raw', bytes: true },
  3: { name: 'contentEncoding' },
  4: { name: 'contentType' },
};

/** Reads an enveloped object of the kind `message` describes; 400 when the bytes are not one. */
export function readKubernetesProtobuf(bytes: Uint8Array, message: ProtobufMessage): Record<string, unknown> {
  if (bytes.length < MAGIC.length || MAGIC.some((byte, index) => bytes[index] !== byte))
    throw refusal('it does not start with the Kubernetes protobuf prefix');
  const envelope = readMessage(bytes.subarray(MAGIC.length), ENVELOPE);
  if (envelope.contentEncoding)
    throw refusal(`content encoding ${JSON.stringify(envelope.contentEncoding)} is not supported`);
  const typeMeta = (envelope.typeMeta ?? {}) as Record<string, unknown>;
  const raw = envelope.raw;
  if (!(raw instanceof Uint8Array)) throw refusal('the envelope holds no object');
  return { ...typeMeta, ...readMessage(raw, message) };
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

function text(bytes: Uint8Array, name: string): string {
  try {
    return UTF8.decode(bytes);
  } catch {
    throw refusal(`field ${JSON.stringify(name)} is not UTF-8 text`);
  }
}

function refusal(why: string) {
  return apiError('BadRequest', `the protobuf body cannot be read: ${why}`);
}

/**
 * One message's fields, into `object`; strings decoded as UTF-8, nested messages read by their
 * declaration. A field sent more than once is read as protobuf (and the Go types kube-apiserver
 * decodes with) reads it: a string or number, the last wins; a nested message is merged into the
 * one read before, field by field (issue 38: it replaced it). No field this server reads is repeated.
 */
function readMessage(
  bytes: Uint8Array,
  message: ProtobufMessage,
  object: Record<string, unknown> = {},
): Record<string, unknown> {
  let offset = 0;
  const varint = (): number => {
    let value = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      if (offset >= bytes.length) throw refusal('a number runs past the end');
      const byte = bytes[offset++]!;
      value += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return value;
    }
    throw refusal('a number is longer than this server reads');
  };
  while (offset < bytes.length) {
    const key = varint();
    const number = Math.floor(key / 8);
    const field: ProtobufField | undefined = message[number];
    const name = field?.name ?? `field${number}`;
    switch (key % 8) {
      case 0:
        object[name] = varint();
        break;
      case 2: {
        const length = varint();
        if (offset + length > bytes.length) throw refusal('a field runs past the end');
        const content = bytes.subarray(offset, offset + length);
        offset += length;
        // A field the declaration does not name may be a message or bytes, not text: kept as it came,
        // for the schema to refuse by name where it matters (metadata's own fields are not looked at).
        object[name] =
          field === undefined || field.bytes
            ? content
            : field.message
              ? readMessage(content, field.message, readSoFar(object[name]))
              : text(content, name);
        break;
      }
      default:
        throw refusal(`field ${number} has a wire type this server does not read`);
    }
  }
  return object;
}

/** The message read before under a field's name, to merge the next copy into; a fresh one when there is none. */
function readSoFar(earlier: unknown): Record<string, unknown> {
  return typeof earlier === 'object' && earlier !== null && !(earlier instanceof Uint8Array)
    ? (earlier as Record<string, unknown>)
    : {};
}
