// What client-go (kubectl, helm) probes in the API server's OpenAPI documents (the emulator answers the same probes with its own code): the PATCH
// operation of a kind listing `fieldValidation`, which makes kubectl leave field validation to the server, and the
// protobuf OpenAPI v2 document it asks for when a v3 document lacks that operation.

/** The operation `PATCH` of a kind, tagged with its group-version-kind and taking `fieldValidation`. */
export function patchOperation(
  groupVersionKind: { group: string; version: string; kind: string },
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    'x-kubernetes-group-version-kind': groupVersionKind,
    'x-kubernetes-action': 'patch',
    parameters: [{ name: 'fieldValidation', in: 'query', schema: { type: 'string', uniqueItems: true } }],
    responses: { '200': { description: 'OK' } },
    ...extra,
  };
}

// client-go asks for `...spec.v2@v1.0+protobuf`; servers answer with this form, which Go's mime parser accepts.
export const PROTOBUF_V2 = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

/** An openapi_v2.Document protobuf holding only `swagger: "2.0"` (field 1, length-delimited). */
export const PROTOBUF_V2_DOCUMENT = Buffer.from([0x0a, 0x03, ...Buffer.from('2.0')]);

/** Whether an Accept header asks for the protobuf OpenAPI v2 document (client-go does). */
export function wantsProtobufOpenApiV2(accept: string): boolean {
  return accept.includes('proto-openapi.spec.v2');
}
