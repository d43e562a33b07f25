// Errors in kubectl's words (k8s.io/kubectl's cmdutil.StandardErrorMessage): a server's refusal as
// `Error from server (<Reason>): <message>`, an unreadable or missing credential as `error: You must be
// logged in to the server (<message>)`, a connection failure as `Unable to connect to the server: ...`.
// The platform answers Kubernetes `Status` objects on resource routes and `{"error", "reason"}` on its
// own routes; both carry a reason and a message.
import { PluginError } from './plugin-error.ts';

/** The reason and message of an error answer of either shape. */
function statusOf(status: number, body: unknown): { reason: string | undefined; message: string } {
  const fields = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  return {
    reason: text(fields.reason),
    message: text(fields.message) ?? text(fields.error) ?? `the server answered ${status}`,
  };
}

/** The PluginError for a non-2xx answer. */
export function serverError(status: number, body: unknown): PluginError {
  const { reason, message } = statusOf(status, body);
  if (status === 401) return new PluginError(`error: You must be logged in to the server (${message})`, 'server');
  return new PluginError(
    reason ? `Error from server (${reason}): ${message}` : `Error from server: ${message}`,
    'server',
    reason,
  );
}

/** The PluginError for a request that got no answer (or could not be sent: a credential plugin failed). */
export function connectionError(error: Error & { code?: string }, url: URL): PluginError {
  const code = error.code ?? '';
  if (code === 'ECONNREFUSED')
    return new PluginError(
      `Unable to connect to the server: dial tcp ${url.host}: connect: connection refused`,
      'server',
    );
  if (code === 'ENOTFOUND')
    return new PluginError(`Unable to connect to the server: dial tcp: lookup ${url.hostname}: no such host`, 'server');
  if (
    url.protocol === 'https:' &&
    (code === 'EPROTO' || /wrong version number|packet length too long/i.test(error.message))
  )
    return new PluginError(
      `Unable to connect to the server: ${url.origin} does not speak HTTPS (the server answered in plain HTTP): start it with LOCAL_HTTPS=true or TLS_CERT_FILE/TLS_KEY_FILE, or use the http:// URL`,
      'server',
    );
  if (code.startsWith('ERR_TLS') || /CERT|SELF_SIGNED/.test(code))
    return new PluginError(
      `Unable to connect to the server: tls: failed to verify certificate: ${error.message} (${code}): the certificate-authority (the kubeconfig's, or --certificate-authority) does not trust the server`,
      'server',
    );
  return new PluginError(`Unable to connect to the server: ${error.message}`, 'server');
}
