import type { AppContext } from '../../../shared/server/app/app-context.ts';
import { jsonResponse } from '../../../shared/base/http/api-request.ts';
import { notFound } from '../../../shared/base/http/error-catalogue.ts';
import { OutboundQueue } from '../../../shared/domain/outbound/outbound-queue.ts';
import { notificationReceiverKey } from '../../../shared/domain/notifications/notification-receivers.ts';
import type { ClusterObjects } from '../../../shared/domain/resources/cluster-objects.ts';
import { NOTIFICATION } from '../../../shared/contract/kinds/platform-kinds.ts';
import type { DeclaredRoute } from '../../../shared/contract/routes/route-table.ts';
import type { RouteRequest } from '../../../shared/server/runtime/typed-handlers.ts';

type NotificationRoute<Id extends string> = Extract<DeclaredRoute, { operationId: Id }>;

/**
 * A Notification's delivery log and redelivery (issue 47, item 3), authorized by the chain on the Notification
 * the path names; the handlers read only that Notification's attempts (the receiver key is built from the
 * authorized namespace and name).
 */
export function notificationHandlers(context: Pick<AppContext, 'runs'>, objects: ClusterObjects) {
  const queue = new OutboundQueue(context.runs.database);
  return {
    listNotificationDeliveries: async (request: RouteRequest<NotificationRoute<'listNotificationDeliveries'>>) => {
      const { project, notification } = request.params;
      const { limit } = request.input.query();
      const items = await queue.attemptsOf(notificationReceiverKey(project, notification), limit);
      // A deleted Notification's log stays readable until the retention; a name that never was one is a 404,
      // so a typo does not read as "nothing was sent".
      if (
        items.length === 0 &&
        !(await objects.find(
          objects.platformPath(NOTIFICATION, { namespace: project, name: notification }),
          request.deadline,
        ))
      )
        throw notFound(`no Notification ${project}/${notification}`);
      return jsonResponse(200, { items });
    },
    redeliverNotification: async (request: RouteRequest<NotificationRoute<'redeliverNotification'>>) => {
      const { project, notification, delivery } = request.params;
      const again = await queue.redeliver(notificationReceiverKey(project, notification), delivery);
      if (!again) throw notFound(`no delivery ${delivery} of Notification ${project}/${notification}`);
      return jsonResponse(201, again);
    },
  };
}
