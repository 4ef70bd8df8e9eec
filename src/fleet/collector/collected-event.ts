/** One captured event as the collector keeps it: one row per uuid, properties as JSON. */
export interface CollectedEvent {
  uuid: string;
  event: string;
  distinctId: string;
  /** Milliseconds since the epoch, UTC. */
  timestamp: number;
  properties: Record<string, unknown>;
}
