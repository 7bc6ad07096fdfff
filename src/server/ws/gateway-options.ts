// The gateway's limits and timers. Production takes the defaults (the budget from WS_BROADCAST_BUFFER);
// tests shorten the timers to see heartbeats and dead-peer detection without waiting.

export interface WsGatewayOptions {
  /** Outbound messages per connection (queued by us plus handed to the socket) before deltas are dropped. */
  readonly broadcastBuffer: number;
  /** Every this many ms: a heartbeat frame and a protocol ping; a peer silent for two rounds is terminated. */
  readonly heartbeatIntervalMs: number;
  /** Text frames above this size get `invalid_message` and the connection stays open. */
  readonly maxMessageBytes: number;
  /** Frames above this size close the connection (1009) before they are buffered whole. */
  readonly maxFrameBytes: number;
  /** Markets one connection may subscribe to at once. */
  readonly maxSubscriptions: number;
  /** Bytes queued for one connection (ours plus the socket's) before it counts as stalled. */
  readonly maxQueuedBytes: number;
  /** Incoming frames waiting to be handled before the connection's socket is paused. */
  readonly maxPendingIncoming: number;
  /** Bytes the socket may hold unsent before we stop handing it more and keep frames in our queue. */
  readonly socketHighWaterBytes: number;
  /**
   * How long a connection's requests may wait for its own replies to be written (the peer reads
   * nothing) before the peer counts as stalled and is terminated.
   */
  readonly stallTimeoutMs: number;
}

export const DEFAULT_WS_OPTIONS: Omit<WsGatewayOptions, 'broadcastBuffer'> = {
  heartbeatIntervalMs: 15_000,
  maxMessageBytes: 64 * 1024,
  maxFrameBytes: 1024 * 1024,
  maxSubscriptions: 256,
  maxQueuedBytes: 64 * 1024 * 1024,
  maxPendingIncoming: 256,
  socketHighWaterBytes: 256 * 1024,
  stallTimeoutMs: 5_000,
};

/**
 * Control frames (acks, private events, snapshots, resyncs) are never dropped; they may use this many
 * slots in all. A connection that would need more has stopped reading and is terminated.
 */
export function hardCap(broadcastBuffer: number): number {
  return 2 * broadcastBuffer + 64;
}
