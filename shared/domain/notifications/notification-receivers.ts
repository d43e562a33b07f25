import type { OutboundReceivers, ReceiverRequest } from '../outbound/outbound-engine.ts';
import type { OutboxEvent } from '../outbound/outbox-event.ts';
import type { ClusterObjects } from '../resources/cluster-objects.ts';
import { NOTIFICATION, WORKSPACE } from '../../contract/kinds/platform-kinds.ts';
import type { PlatformObject } from '../../contract/kinds/platform-object.ts';
import {
  type NotificationEvent,
  notificationEventsOf,
  rolloutOf,
  subjectKindOf,
  workspaceOf,
} from './notification-events.ts';
import {
  cloudEventRequest,
  type NotificationMessage,
  type ResolvedReceiver,
  slackRequest,
  webhookRequest,
} from './notification-formats.ts';

interface SecretKeyRef {
  name: string;
  key: string;
}

/** A Notification as its CRD (infra/chart/files/crds/notifications.yaml) declares it. */
interface NotificationObject extends PlatformObject {
  spec: {
    events: NotificationEvent[];
    workspaces?: string[];
    workspaceSelector?: { matchLabels?: Record<string, string> };
    rollouts?: string[];
    rolloutSelector?: { matchLabels?: Record<string, string> };
    suspend?: boolean;
    receiver: {
      type: 'cloudevents' | 'webhook' | 'slack';
      url?: string;
      urlSecretRef?: SecretKeyRef;
      signingKeySecretRef?: SecretKeyRef;
      headersSecretRef?: { name: string };
    };
  };
}

interface SecretObject {
  metadata: { labels?: Record<string, string> };
  data?: Record<string, string>;
}

/** Where links in notifications point and which API group the kinds are in. */
export interface NotificationLinks {
  apiGroup: string;
  /** API_BASE_URL: the run's record when there is no console. */
  apiBaseUrl: string;
  /** CONSOLE_URL: the console's origin; its run page is linked when set. */
  consoleUrl: string | undefined;
}

/** The engine's key of a Notification's deliveries: the family and the Notification's namespace and name. */
export const notificationReceiverKey = (namespace: string, name: string) => `notification:${namespace}/${name}`;

/** The label a Secret needs before a Notification may use it: `<group>/notification-secret: "true"`. */
export const notificationSecretLabel = (apiGroup: string) => `${apiGroup}/notification-secret`;

const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * The Notifications of a Project as a receiver family of the outbound engine (issue 47, item 2). Which of
 * them want an event is read when the event is routed (so one created later does not get earlier events);
 * the request is built at each attempt from the Notification and its Secrets as they are then: a deleted
 * Notification drops its deliveries, a suspended one holds them. A Secret is used only when it carries
 * the notification-secret label, so a Notification cannot send a Secret made for something else (a
 * VariableSet's values) to its receiver. Secret values go into the request alone: never into an error,
 * a log line or the delivery log.
 */
export function notificationReceivers(
  objects: () => Promise<ClusterObjects>,
  links: NotificationLinks,
): OutboundReceivers {
  const secretOf = async (cluster: ClusterObjects, namespace: string, name: string): Promise<SecretObject> => {
    const secret = await cluster.find<SecretObject>(cluster.corePath('secrets', { namespace, name }));
    if (!secret) throw new Error(`Secret ${namespace}/${name} does not exist`);
    if (secret.metadata.labels?.[notificationSecretLabel(links.apiGroup)] !== 'true')
      throw new Error(
        `Secret ${namespace}/${name} is not labelled ${notificationSecretLabel(links.apiGroup)}=true, so no Notification may use it`,
      );
    return secret;
  };
  const secretValue = async (cluster: ClusterObjects, namespace: string, ref: SecretKeyRef) => {
    const encoded = (await secretOf(cluster, namespace, ref.name)).data?.[ref.key];
    if (encoded === undefined) throw new Error(`Secret ${namespace}/${ref.name} has no key ${ref.key}`);
    return Buffer.from(encoded, 'base64').toString('utf8').trim();
  };
  const resolve = async (cluster: ClusterObjects, notification: NotificationObject): Promise<ResolvedReceiver> => {
    const namespace = notification.metadata.namespace!;
    const { receiver } = notification.spec;
    const headers: Record<string, string> = {};
    if (receiver.headersSecretRef) {
      const secret = await secretOf(cluster, namespace, receiver.headersSecretRef.name);
      for (const [name, encoded] of Object.entries(secret.data ?? {})) {
        if (!HEADER_NAME.test(name))
          throw new Error(`Secret ${namespace}/${receiver.headersSecretRef.name}: key "${name}" is not a header name`);
        headers[name.toLowerCase()] = Buffer.from(encoded, 'base64').toString('utf8').trim();
      }
    }
    return {
      url: receiver.urlSecretRef ? await secretValue(cluster, namespace, receiver.urlSecretRef) : receiver.url!,
      headers,
      ...(receiver.signingKeySecretRef
        ? { signingKey: await secretValue(cluster, namespace, receiver.signingKeySecretRef) }
        : {}),
    };
  };
  /**
   * A run's event links the run; a token's, the Project's tokens; a stage's, its Rollout; a window's or the
   * freeze's, the Project (the console's page, else the record in the API).
   */
  const link = (event: OutboxEvent) => {
    const project = encodeURIComponent(event.scope);
    const kind = subjectKindOf(event);
    if (kind === 'rollout' || kind === 'window' || kind === 'freeze') {
      const rollout = kind === 'rollout' ? encodeURIComponent(String(event.data.rollout)) : undefined;
      if (links.consoleUrl)
        return `${links.consoleUrl}/#/projects/${project}${rollout === undefined ? '' : `/rollouts/${rollout}`}`;
      const api = `${links.apiBaseUrl}/apis/${links.apiGroup}/v1alpha1`;
      return rollout === undefined ? `${api}/projects/${project}` : `${api}/namespaces/${project}/rollouts/${rollout}`;
    }
    const page = workspaceOf(event) === undefined ? 'tokens' : `runs/${String(event.data.id)}`;
    return links.consoleUrl
      ? `${links.consoleUrl}/#/projects/${project}/${page}`
      : `${links.apiBaseUrl}/api/v1alpha1/projects/${project}/${page}`;
  };

  return {
    family: 'notification',
    async receiversOf(event: OutboxEvent) {
      const names = notificationEventsOf(event);
      if (names.length === 0) return [];
      // Workspace filters narrow the events of a Workspace's runs, Rollout filters a Rollout's stage events (by the
      // Rollout's labels as the event recorded them); a token's, a window's or the freeze's belongs to the Project alone.
      const workspace = workspaceOf(event);
      const rollout = rolloutOf(event);
      const cluster = await objects();
      const list = await cluster.find<{ items: NotificationObject[] }>(
        cluster.platformPath(NOTIFICATION, { namespace: event.scope }),
      );
      const wanting = (list?.items ?? []).filter(
        (notification) =>
          !notification.spec.suspend &&
          notification.spec.events.some((name) => names.includes(name)) &&
          (workspace === undefined ||
            !notification.spec.workspaces?.length ||
            notification.spec.workspaces.includes(workspace)) &&
          (rollout === undefined || rolloutWanted(notification, rollout.rollout, rollout.labels)),
      );
      let labels: Record<string, string> | undefined;
      const matching: string[] = [];
      for (const notification of wanting) {
        const selector = Object.entries(notification.spec.workspaceSelector?.matchLabels ?? {});
        if (workspace !== undefined && selector.length > 0) {
          labels ??=
            (
              await cluster.find<PlatformObject>(
                cluster.platformPath(WORKSPACE, { namespace: event.scope, name: workspace }),
              )
            )?.metadata.labels ?? {};
          if (!selector.every(([key, value]) => labels![key] === value)) continue;
        }
        matching.push(`${notification.metadata.namespace}/${notification.metadata.name}`);
      }
      return matching;
    },
    async requestFor(receiver: string, event: OutboxEvent): Promise<ReceiverRequest> {
      const [namespace = '', name = ''] = receiver.split('/');
      const cluster = await objects();
      const notification = await cluster.find<NotificationObject>(
        cluster.platformPath(NOTIFICATION, { namespace, name }),
      );
      if (!notification) return { drop: `Notification ${receiver} was deleted` };
      if (notification.spec.suspend) return { hold: `Notification ${receiver} is suspended` };
      const wanted = notificationEventsOf(event).find((candidate) => notification.spec.events.includes(candidate));
      if (!wanted) return { drop: `Notification ${receiver} no longer asks for ${event.type}` };
      // The CRD's validation rules say so too; a cluster that does not evaluate them still sends nothing unsigned.
      const { receiver: declared } = notification.spec;
      if (declared.type === 'webhook' && !declared.signingKeySecretRef)
        return { drop: `Notification ${receiver}: a webhook receiver needs signingKeySecretRef` };
      if (!declared.url === !declared.urlSecretRef)
        return { drop: `Notification ${receiver}: exactly one of url and urlSecretRef must be set` };
      const message: NotificationMessage = { event, name: wanted, link: link(event), apiGroup: links.apiGroup };
      const resolved = await resolve(cluster, notification);
      const format = notification.spec.receiver.type;
      const request =
        format === 'cloudevents'
          ? cloudEventRequest(message, resolved)
          : format === 'webhook'
            ? webhookRequest(message, resolved)
            : slackRequest(message, resolved);
      return { request: { ...request, secrets: secretValuesOf(resolved, Boolean(declared.urlSecretRef)) } };
    },
  };
}

/** Whether a Notification's Rollout filters (`rollouts`, `rolloutSelector`) let a stage event of this Rollout through. */
function rolloutWanted(notification: NotificationObject, name: string, labels: Record<string, string>): boolean {
  const { rollouts, rolloutSelector } = notification.spec;
  if (rollouts?.length && !rollouts.includes(name)) return false;
  return Object.entries(rolloutSelector?.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
}

/**
 * What of a receiver came from Secrets, for the engine to keep out of the delivery log: every header value,
 * the signing key, and a URL from a Secret with its path and query (what a receiver sees of it and may echo).
 */
function secretValuesOf(receiver: ResolvedReceiver, urlFromSecret: boolean): string[] {
  const values = [...Object.values(receiver.headers), ...(receiver.signingKey ? [receiver.signingKey] : [])];
  if (urlFromSecret) {
    values.push(receiver.url);
    const parsed = URL.canParse(receiver.url) ? new URL(receiver.url) : undefined;
    if (parsed && `${parsed.pathname}${parsed.search}` !== '/') values.push(`${parsed.pathname}${parsed.search}`);
  }
  return values;
}
