import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';

const LISTEN = '0A';

/**
 * The local addresses of every socket of this machine listening on TCP `port`, as the kernel lists
 * them (/proc/net/tcp, tcp6): `127.0.0.1`, `0.0.0.0`, `::` or an IPv6 address in hex.
 */
export function listeningAddresses(port: number): string[] {
  return ['/proc/net/tcp', '/proc/net/tcp6'].flatMap((table) =>
    readFileSync(table, 'utf8')
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      .filter(([, local, , state]) => state === LISTEN && Number.parseInt(local!.split(':')[1]!, 16) === port)
      .map(([, local]) => readableAddress(local!.split(':')[0]!)),
  );
}

function readableAddress(hex: string): string {
  // IPv4 is one little-endian word; an IPv6 address is shown here only as "any" or in hex.
  if (hex.length === 8)
    return (hex.match(/../g) ?? [])
      .reverse()
      .map((byte) => Number.parseInt(byte, 16))
      .join('.');
  return /^0+$/.test(hex) ? '::' : hex;
}

/** This machine's IPv4 addresses other than loopback (none in some sandboxes). */
export function nonLoopbackAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flat()
    .filter((address) => address !== undefined && address.family === 'IPv4' && !address.internal)
    .map((address) => address!.address);
}

/** Whether a TCP connection to address:port is accepted. */
export function connects(address: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, address);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
