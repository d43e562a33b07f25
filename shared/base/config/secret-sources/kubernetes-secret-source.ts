import { CoreV1Api, Watch, type KubeConfig } from '@kubernetes/client-node';
import { ADMIN_SETTING_KEYS, type AdminSettingValues } from '../admin-account-settings.ts';
import type { FollowedSecret } from './followed-admin-settings-source.ts';

/** How long to wait before re-opening a watch the API server ended or that failed; doubled while it keeps failing. */
const REWATCH_DELAY_MS = 1000;

/**
 * A Kubernetes Secret read from the API server and watched (a field-selected watch on its name,
 * which RBAC `resourceNames` allows). Every watch event, every re-opened watch and a re-read
 * every `pollIntervalMs` (in case a watch silently stalls) lead to a fresh GET of the Secret. A
 * watch that keeps ending without events (refused, unreachable) is re-opened ever more slowly,
 * up to `pollIntervalMs` apart, so a broken watch costs no more than the poll.
 */
export function kubernetesSecret(
  kubeConfig: KubeConfig,
  namespace: string,
  name: string,
  pollIntervalMs: number,
): FollowedSecret {
  const api = kubeConfig.makeApiClient(CoreV1Api);
  return {
    description: `the Kubernetes Secret ${namespace}/${name}`,
    async read() {
      const secret = await api.readNamespacedSecret({ name, namespace });
      const values: AdminSettingValues = {};
      for (const key of ADMIN_SETTING_KEYS) {
        const encoded = secret.data?.[key];
        if (encoded !== undefined) values[key] = Buffer.from(encoded, 'base64').toString('utf8');
      }
      return values;
    },
    follow(changed) {
      let stopped = false;
      let watchAbort: AbortController | undefined;
      let rewatch: NodeJS.Timeout | undefined;
      let quietEndings = 0;
      const watchPath = `/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets`;
      const openWatch = () => {
        new Watch(kubeConfig)
          .watch(watchPath, { fieldSelector: `metadata.name=${name}`, allowWatchBookmarks: false }, onEvent, () =>
            reopen(),
          )
          .then(
            (abort) => {
              if (stopped) abort.abort();
              else watchAbort = abort;
            },
            () => reopen(),
          );
      };
      // A working watch starts with an ADDED event for the Secret, which resets the back-off.
      const onEvent = () => {
        quietEndings = 0;
        changed();
      };
      const reopen = () => {
        if (stopped) return;
        clearTimeout(rewatch);
        const delay = Math.min(REWATCH_DELAY_MS * 2 ** quietEndings, pollIntervalMs);
        quietEndings += 1;
        rewatch = setTimeout(() => {
          changed();
          openWatch();
        }, delay);
        rewatch.unref();
      };
      const poll = setInterval(changed, pollIntervalMs);
      poll.unref();
      openWatch();
      return () => {
        stopped = true;
        clearInterval(poll);
        clearTimeout(rewatch);
        watchAbort?.abort();
      };
    },
  };
}
