import { createHash } from 'node:crypto';

/** memtrace's UUIDv5 namespace: fixed forever so a re-sent event keeps its id. */
const NAMESPACE = 'a3b1c0de-5e1f-4d7a-9c2b-6d0e8f4a1b37';

/** RFC 4122 v5 over (install id, event, key, sequence): PostHog drops a re-send as a duplicate. */
export function eventUuid(input: { installId: string; event: string; key: string; seq: number }): string {
  const ns = Buffer.from(NAMESPACE.replace(/-/g, ''), 'hex');
  const hash = createHash('sha1').update(ns).update(`${input.installId}\u0000${input.event}\u0000${input.key}\u0000${input.seq}`).digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
