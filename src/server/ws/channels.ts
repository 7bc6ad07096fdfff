// The one list of WebSocket channels. `l3` is the full order-by-order book of the specification,
// `trades` the public executions (trading extensions); the conflated public channels
// (src/server/feeds/) follow. A channel named here needs a subscribe schema
// in client-messages.ts and a branch in message-handler.ts.
export const CHANNELS = ['l3', 'trades', 'l2', 'ticker', 'standings'] as const;

export type Channel = (typeof CHANNELS)[number];

/** Channels whose subscription names no market (one stream for the whole exchange). */
export const EXCHANGE_WIDE_CHANNELS: readonly Channel[] = ['standings'];

export function isChannel(value: unknown): value is Channel {
  return typeof value === 'string' && (CHANNELS as readonly string[]).includes(value);
}

export const UNSUPPORTED_CHANNEL_MESSAGE = `unsupported channel; supported channels are ${CHANNELS.join(', ')}`;

/** Largest `depth` an l2 subscription may ask for. */
export const MAX_L2_DEPTH = 1000;
