// TokenRequest (POST .../serviceaccounts/<name>/token): issues a bound ServiceAccount token.
import type { EmulatorContext } from '../emulator-context.ts';
import { parseJson } from '../http/http-messages.ts';
import type { JsonReply } from '../http/http-messages.ts';
import { kubeTimestamp } from '../objects/kube-object.ts';
import type { RequestInfo } from '../http/request-info.ts';
import { invalid } from '../http/status.ts';

interface TokenRequestBody {
  spec?: { audiences?: string[]; expirationSeconds?: number; boundObjectRef?: unknown };
}

const DEFAULT_EXPIRATION_SECONDS = 3600;
const MIN_EXPIRATION_SECONDS = 600;

/** Issues a token for an existing ServiceAccount; audiences default to the API server's own (its issuer). */
export async function handleTokenRequest(
  context: EmulatorContext,
  info: RequestInfo,
  body: string,
): Promise<JsonReply> {
  const account = context.store.get(context.registry.get('', 'serviceaccounts')!, info.namespace, info.name);
  const request = (parseJson(body || '{}') ?? {}) as TokenRequestBody;
  const requestedAudiences = request.spec?.audiences ?? [];
  const audiences = requestedAudiences.length > 0 ? requestedAudiences : context.authenticator.apiAudiences;
  const expirationSeconds = request.spec?.expirationSeconds ?? DEFAULT_EXPIRATION_SECONDS;
  if (expirationSeconds < MIN_EXPIRATION_SECONDS) {
    throw invalid({ group: 'authentication.k8s.io', kind: 'TokenRequest' }, info.name, [
      {
        field: 'spec.expirationSeconds',
        type: 'FieldValueInvalid',
        value: expirationSeconds,
        detail: 'may not specify a duration less than 10 minutes',
      },
    ]);
  }
  const { token, expiresAt } = await context.serviceAccountTokens.mint(
    { namespace: info.namespace, name: info.name, uid: account.metadata.uid! },
    audiences,
    expirationSeconds,
  );
  return {
    status: 201,
    body: {
      kind: 'TokenRequest',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: { name: info.name, namespace: info.namespace, creationTimestamp: kubeTimestamp() },
      spec: { audiences, expirationSeconds, boundObjectRef: request.spec?.boundObjectRef ?? null },
      status: { token, expirationTimestamp: kubeTimestamp(expiresAt) },
    },
  };
}
