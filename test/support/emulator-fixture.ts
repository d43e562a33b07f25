// Shared set-up of the emulator tests: one emulator per test file, and the Status body of a failed client call.
import { afterAll, beforeAll } from 'vitest';
import { ApiException } from '@kubernetes/client-node';
import { startKubeEmulator } from '../../infra/kube-emulator/index.ts';
import type { KubeEmulator, KubeEmulatorOptions } from '../../infra/kube-emulator/index.ts';

/** Starts an emulator before the file's tests and stops it after; call the returned function inside tests. */
export function useKubeEmulator(options: KubeEmulatorOptions = {}): () => KubeEmulator {
  let emulator: KubeEmulator | undefined;
  beforeAll(async () => {
    emulator = await startKubeEmulator(options);
  });
  afterAll(async () => {
    await emulator?.close();
  });
  return () => emulator!;
}

export interface KubeStatus {
  code: number;
  reason?: string;
  message?: string;
  details?: { name?: string; group?: string; kind?: string };
}

/** The Kubernetes Status a client-node call failed with (its body is the raw JSON text). */
export async function statusOf(call: Promise<unknown>): Promise<KubeStatus> {
  try {
    await call;
  } catch (error) {
    if (!(error instanceof ApiException)) throw error;
    const body =
      typeof error.body === 'string' && error.body !== ''
        ? (JSON.parse(error.body) as KubeStatus)
        : { code: error.code };
    return { ...body, code: error.code };
  }
  throw new Error('expected the call to fail');
}

/** Sends a raw request with the admin token, for what client-node cannot express (malformed bodies). */
export function rawRequest(
  emulator: KubeEmulator,
  path: string,
  init: RequestInit & { token?: string | null } = {},
): Promise<Response> {
  const token = init.token === undefined ? emulator.adminToken : init.token;
  const headers = new Headers(init.headers);
  if (token) headers.set('Authorization', `Bearer ${token}`);
  return fetch(`${emulator.url}${path}`, { ...init, headers });
}
