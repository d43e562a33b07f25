import type { Settings } from '../../../shared/base/config/settings.ts';
import type { Logger } from '../../../shared/base/logging/logger.ts';
import type { RunningServer } from '../../../knative/node-http/running-server.ts';
import { gatewayTls } from '../gateway/gateway-tls.ts';
import type { DevelopmentSettings } from '../local/local-settings.ts';
import { startDevelopmentController, type DevelopmentController } from './development-controller.ts';

/**
 * `npm start`'s development controller against its gateway, unless LOCAL_CONTROLLER=false or the
 * cluster is not the built-in emulator (a KUBECONFIG cluster is someone's: no ServiceAccount or
 * ClusterRole is made there, and its own controller, if any, does the work).
 */
export async function startLocalController(
  settings: Settings,
  local: DevelopmentSettings,
  gateway: RunningServer,
  logger: Logger,
): Promise<DevelopmentController | undefined> {
  if (!local.controller) {
    logger.info(
      'development controller off (LOCAL_CONTROLLER=false): runs stay Pending until a controller claims them',
    );
    return undefined;
  }
  const cluster = await gateway.context.cluster();
  if (!cluster.builtInEmulator) return undefined;
  const tls = await gatewayTls(settings, local);
  return startDevelopmentController({
    url: gateway.url,
    ...(tls ? { certificate: tls.cert } : {}),
    kubeConfig: cluster.kubeConfig,
    apiGroup: gateway.context.config.apiGroup,
    logger,
  });
}
