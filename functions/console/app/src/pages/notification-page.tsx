// A Project's Notifications and each one's delivery log (issue 47, item 6; docs/notifications.md):
// pause and resume (`spec.suspend`, a merge patch: `patch` on the Notification) and redelivery of one
// event (`update` on the Notification), each shown only where the user's rules allow it.
import { useState } from 'preact/hooks';
import type { LoggedAttempt } from '../../../../../shared/contract/rules/delivery-log.ts';
import { type ProjectPermissions, useProjectPermissions } from '../access.ts';
import { type Api, errorText } from '../api.ts';
import { apiGroup, type KubeObject, listKind } from '../platform-api.ts';
import { href } from '../router.ts';
import { type Loaded, useLoaded } from '../use-loaded.ts';
import { Breadcrumbs, DataTable, Facts, ListSection, LoadedView, PageNotice, PageTitle, TimeCell } from './common.tsx';

/** The part of a Notification's spec the console shows; secrets are references, never values. */
export interface NotificationSpec {
  events?: string[];
  workspaces?: string[];
  workspaceSelector?: { matchLabels?: Record<string, string> };
  rollouts?: string[];
  rolloutSelector?: { matchLabels?: Record<string, string> };
  suspend?: boolean;
  receiver?: {
    type?: string;
    url?: string;
    urlSecretRef?: { name: string; key: string };
  };
}

const notificationHref = (project: string, name: string) => href('projects', project, 'notifications', name);
const deliveryLogPath = (project: string, name: string) =>
  `/api/v1alpha1/projects/${encodeURIComponent(project)}/notifications/${encodeURIComponent(name)}/deliveries`;

/** Where a receiver sends: its URL, or the Secret that holds it (a chat webhook's URL is a secret). */
function receiverText(receiver: NotificationSpec['receiver']): string {
  if (!receiver) return '—';
  const where = receiver.url ?? (receiver.urlSecretRef ? `URL in Secret ${receiver.urlSecretRef.name}` : '');
  return `${receiver.type ?? '?'}: ${where}`;
}

/** The Notifications section of a Project's page. */
export function ProjectNotifications({ api, project }: { api: Api; project: string }) {
  const notifications = useLoaded(
    () => listKind<NotificationSpec>(api, 'notifications', project),
    `notifications/${project}`,
  );
  return (
    <ListSection id="notifications" title="Notifications" loaded={notifications}>
      {(items) => (
        <DataTable columns={['Name', 'Events', 'Receiver', 'State']}>
          {items.map((notification) => (
            <tr key={notification.metadata.name}>
              <td>
                <a href={notificationHref(project, notification.metadata.name)}>{notification.metadata.name}</a>
              </td>
              <td class="wrap">{(notification.spec?.events ?? []).join(', ')}</td>
              <td class="wrap">{receiverText(notification.spec?.receiver)}</td>
              <td>{notification.spec?.suspend ? 'Paused' : 'Active'}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </ListSection>
  );
}

/** A Notification: what it sends where, Pause or Resume, and its delivery log with Redeliver. */
export function NotificationPage({ api, project, notification }: { api: Api; project: string; notification: string }) {
  const [notice, setNotice] = useState<{ text: string; error?: boolean } | undefined>(undefined);
  const permissions = useProjectPermissions(api, project);
  const objectPath = async () =>
    `/apis/${await apiGroup(api)}/v1alpha1/namespaces/${encodeURIComponent(project)}/notifications/${encodeURIComponent(notification)}`;
  const object = useLoaded(
    async () => api.get<KubeObject<NotificationSpec>>(await objectPath()),
    `notification/${project}/${notification}`,
  );
  const log = useLoaded(
    () => api.get<{ items: LoggedAttempt[] }>(deliveryLogPath(project, notification)),
    `deliveries/${project}/${notification}`,
  );
  const done = (text: string) => setNotice({ text });
  const failed = (error: unknown) => setNotice({ text: errorText(error), error: true });
  return (
    <>
      <Breadcrumbs project={project} current={notification} />
      <PageTitle>Notification {notification}</PageTitle>
      <PageNotice text={notice?.text} error={notice?.error} />
      <LoadedView loaded={object}>
        {(found) => (
          <>
            <Facts
              facts={[
                ['Events', (found.spec?.events ?? []).join(', ')],
                ['Workspaces', (found.spec?.workspaces ?? []).join(', ')],
                ['Workspace labels', labelsText(found.spec?.workspaceSelector)],
                ['Rollouts', (found.spec?.rollouts ?? []).join(', ')],
                ['Rollout labels', labelsText(found.spec?.rolloutSelector)],
                ['Receiver', receiverText(found.spec?.receiver)],
                ['State', found.spec?.suspend ? 'Paused: events are held until it is resumed' : 'Active'],
              ]}
            />
            {permissions.may('patch', 'notifications', notification) && (
              <PauseResume
                api={api}
                path={objectPath}
                notification={notification}
                suspended={found.spec?.suspend === true}
                onDone={(text) => {
                  done(text);
                  object.reload();
                }}
                onFailed={failed}
              />
            )}
          </>
        )}
      </LoadedView>
      <DeliveryLog
        project={project}
        notification={notification}
        attempts={log}
        api={api}
        permissions={permissions}
        onRedelivered={(text) => {
          done(text);
          log.reload();
        }}
        onFailed={failed}
      />
    </>
  );
}

/** A selector's labels as `key=value, ...`. */
function labelsText(selector: { matchLabels?: Record<string, string> } | undefined): string {
  return Object.entries(selector?.matchLabels ?? {})
    .map(([key, value]) => `${key}=${value}`)
    .join(', ');
}

/** Pause (`spec.suspend: true`: new events are held, not dropped) or Resume, as a merge patch. */
function PauseResume({
  api,
  path,
  notification,
  suspended,
  onDone,
  onFailed,
}: {
  api: Api;
  path: () => Promise<string>;
  notification: string;
  suspended: boolean;
  onDone: (text: string) => void;
  onFailed: (error: unknown) => void;
}) {
  const [busy, setBusy] = useState(false);
  const toggle = async () => {
    setBusy(true);
    try {
      await api.send('PATCH', await path(), {
        body: { spec: { suspend: !suspended } },
        contentType: 'application/merge-patch+json',
      });
      onDone(suspended ? `Resumed Notification ${notification}.` : `Paused Notification ${notification}.`);
    } catch (error) {
      onFailed(error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="actions">
      <button type="button" disabled={busy} onClick={toggle}>
        {suspended ? 'Resume' : 'Pause'}
      </button>
    </div>
  );
}

function DeliveryLog({
  api,
  project,
  notification,
  attempts,
  permissions,
  onRedelivered,
  onFailed,
}: {
  api: Api;
  project: string;
  notification: string;
  attempts: Loaded<{ items: LoggedAttempt[] }>;
  permissions: ProjectPermissions;
  onRedelivered: (text: string) => void;
  onFailed: (error: unknown) => void;
}) {
  const mayRedeliver = permissions.may('update', 'notifications', notification);
  const redeliver = async (attempt: LoggedAttempt) => {
    try {
      const again = await api.post<{ delivery: string }>(
        `${deliveryLogPath(project, notification)}/${encodeURIComponent(attempt.delivery)}/redeliver`,
      );
      onRedelivered(
        `Event ${attempt.eventType} (${attempt.event}) will be sent again at the next sweep (delivery ${again.delivery}).`,
      );
    } catch (error) {
      onFailed(error);
    }
  };
  return (
    <ListSection id="deliveries" title="Delivery log" loaded={attempts}>
      {(items) => (
        <DataTable
          columns={[
            'Time',
            'Event',
            'Attempt',
            'Delivery',
            'Status',
            'Latency',
            'Error',
            'Answer',
            mayRedeliver && 'Redeliver',
          ]}
        >
          {items.map((attempt, index) => (
            <tr key={`${attempt.delivery}/${attempt.attempt}`}>
              <td>
                <TimeCell value={attempt.startedAt} />
              </td>
              <td class="wrap">
                {attempt.eventType} <span class="muted">{attempt.subject}</span>
              </td>
              <td>{attempt.attempt}</td>
              <td>{attempt.state}</td>
              <td>{attempt.statusCode ?? '—'}</td>
              <td>{attempt.latencyMs} ms</td>
              <td class="wrap">{attempt.error ?? ''}</td>
              <td class="wrap">
                <code>{attempt.answer}</code>
              </td>
              {mayRedeliver && (
                <td>
                  {/* Newest first: one button per delivery, on its latest attempt. */}
                  {items.findIndex((other) => other.delivery === attempt.delivery) === index && (
                    <button
                      type="button"
                      aria-label={`Redeliver ${attempt.eventType} of ${attempt.subject}`}
                      onClick={() => redeliver(attempt)}
                    >
                      Redeliver
                    </button>
                  )}
                </td>
              )}
            </tr>
          ))}
        </DataTable>
      )}
    </ListSection>
  );
}
