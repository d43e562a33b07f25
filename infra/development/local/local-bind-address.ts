// Issue 44, item 2: local mode runs the admin account with the password everyone knows (`admin`), so
// `npm start` and `npm run fleet` listen on loopback only unless LOCAL_BIND_ADDRESS says otherwise.
// Read with local development's settings (local-settings.ts), not the product's: production entries
// bind where their platform tells them.
import { isIP, type Server } from 'node:net';
import { ConfigError } from '../../../shared/base/config/config-error.ts';
import type { Logger } from '../../../shared/base/logging/logger.ts';

/** Where the local gateways and their console listen when LOCAL_BIND_ADDRESS is not set. */
export const LOOPBACK_ADDRESS = '127.0.0.1';

/** LOCAL_BIND_ADDRESS's value (an IPv4 or IPv6 address), else loopback; anything else is a ConfigError naming it. */
export function localBindAddress(given: string | undefined): string {
  const text = given || LOOPBACK_ADDRESS;
  if (isIP(text) === 0)
    throw new ConfigError(
      'LOCAL_BIND_ADDRESS',
      `"${text}" is not an IP address (127.0.0.1 by default; 0.0.0.0 or :: for every interface)`,
    );
  return text;
}

/** Whether `address` reaches this machine only: 127.0.0.0/8 and ::1. */
export function isLoopbackAddress(address: string): boolean {
  return address === '::1' || /^127\./.test(address) || /^::ffff:127\./i.test(address);
}

/** A bind beyond loopback is logged as the risk it is: anyone who can reach it may sign in as admin. */
export function warnIfReachableFromNetwork(address: string, logger: Logger): void {
  if (isLoopbackAddress(address)) return;
  logger.warn(
    'LOCAL_BIND_ADDRESS makes local mode reachable from other machines: its admin password ("admin" in local development mode) is known to everyone; bind elsewhere than loopback only on a network you trust',
    { address },
  );
}

/** The address a listening server is bound to, as the start-up log reports it (`127.0.0.1`, `::`). */
export function boundAddress(server: Server): string | undefined {
  const address = server.address();
  return typeof address === 'object' && address !== null ? address.address : undefined;
}
