// Issue 38, item 10: the Kubernetes protobuf reader (shared/base/http/kubernetes-protobuf.ts) read an
// embedded message sent twice as the second alone. Protobuf's rule, which the Go types kube-apiserver
// decodes with follow: a scalar sent twice, the last wins; an embedded message sent twice is merged
// with the first (field by field, recursively). Hand-encoded bytes, written independently of the reader.
import { describe, expect, it } from 'vitest';
import { readKubernetesProtobuf, type ProtobufMessage } from '../../../shared/base/http/kubernetes-protobuf.ts';

/** A length-delimited field (wire type 2): key, length, bytes. */
function field(number: number, content: Uint8Array | string): Uint8Array {
  const bytes = typeof content === 'string' ? new TextEncoder().encode(content) : content;
  return Uint8Array.from([(number << 3) | 2, bytes.length, ...bytes]);
}
/** A varint field (wire type 0) with a value under 128. */
const small = (number: number, value: number) => Uint8Array.from([number << 3, value]);
const concat = (...parts: Uint8Array[]) => Uint8Array.from(parts.flatMap((part) => [...part]));
/** "k8s\0", then runtime.Unknown { typeMeta (given in pieces), raw }. */
const enveloped = (object: Uint8Array, ...typeMeta: Uint8Array[]) =>
  concat(Uint8Array.from([0x6b, 0x38, 0x73, 0x00]), ...typeMeta.map((meta) => field(1, meta)), field(2, object));

const MESSAGE: ProtobufMessage = {
  1: {
    name: 'spec',
    message: {
      1: {
        name: 'attributes',
        message: {
          1: { name: 'namespace' },
          2: { name: 'verb' },
          3: { name: 'limits', message: { 1: { name: 'low' }, 2: { name: 'high' } } },
        },
      },
      2: { name: 'note' },
    },
  },
};

describe('issue 38 item 10: protobuf fields sent more than once are read as protobuf reads them', () => {
  it('an embedded message sent twice is merged with the first, at every depth', () => {
    const bytes = enveloped(
      concat(
        field(1, field(1, concat(field(1, 'team-a'), field(3, field(1, 'one'))))),
        field(1, concat(field(2, 'a note'), field(1, concat(field(2, 'list'), field(3, field(2, 'two')))))),
      ),
    );
    expect(readKubernetesProtobuf(bytes, MESSAGE)).toEqual({
      spec: { attributes: { namespace: 'team-a', verb: 'list', limits: { low: 'one', high: 'two' } }, note: 'a note' },
    });
  });

  it('a scalar sent twice: the last wins, also when the second comes in a later copy of its message', () => {
    const bytes = enveloped(
      concat(field(1, field(1, concat(field(1, 'first'), field(1, 'second')))), field(1, field(1, field(1, 'third')))),
    );
    expect(readKubernetesProtobuf(bytes, MESSAGE)).toEqual({ spec: { attributes: { namespace: 'third' } } });
  });

  it("the envelope's TypeMeta in two pieces is merged too; a field the declaration does not name is kept, the last copy", () => {
    const bytes = enveloped(
      concat(field(1, field(9, 'x')), small(7, 1), small(7, 2)),
      field(1, 'authorization.k8s.io/v1'),
      field(2, 'SelfSubjectAccessReview'),
    );
    expect(readKubernetesProtobuf(bytes, MESSAGE)).toEqual({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: { field9: new TextEncoder().encode('x') },
      field7: 2,
    });
  });
});
