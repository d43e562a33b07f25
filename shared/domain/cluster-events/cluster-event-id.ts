import { createHash } from 'node:crypto';

/**
 * A UUID derived from what an event is (the object's uid, the stage or gate, the change and its revision or
 * instant): the same change seen by two sweepers is the same event, which the outbox keeps once (its primary
 * key). RFC 9562's version 8 (custom), from SHA-256.
 */
export function clusterEventId(...parts: string[]): string {
  const bytes = createHash('sha256').update(parts.join('\u0000')).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x80;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
