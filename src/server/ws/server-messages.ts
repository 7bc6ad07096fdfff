// Server-to-client frames as zod schemas: frames.ts builds every frame typed by them, and the AsyncAPI
// document (asyncapi-document.ts) is generated from them, so the server and the document cannot drift.
// They are never run on the hot path (the server builds, it does not parse, its own frames); the
// contract tests validate every frame the test suite receives against the generated document.
import { z } from 'zod';
import { ERRORS, type ErrorCode } from '../../commands/errors.ts';
import { FillSchema, OrderSchema, TradeSchema } from '../http/response-schemas.ts';

const Timestamp = z.string().meta({ description: 'RFC 3339 UTC timestamp with microseconds', example: '2026-01-01T12:00:00.000000Z' });
const Uuid = z.uuid();
const Side = z.enum(['BUY', 'SELL']);
const Seq = z.number().int().min(0);
const RequestId = z.string().nullable().meta({ description: 'the request_id of the frame answered, or null when it carried none' });
const Code = z.enum(Object.keys(ERRORS) as [ErrorCode, ...ErrorCode[]]).meta({ description: 'a stable error code (docs/api.md "Error codes")' });
const Epoch = z.string().meta({ description: 'the feed epoch: a resume with last_sequence is honoured only within the same epoch' });
const RateLimitRemaining = z.number().int().min(0).optional().meta({ description: 'requests left in the trader budget (extension; docs/websocket.md "Limits")' });

export const BookOrderSchema = z.object({
  order_id: Uuid,
  side: Side,
  price: z.number().int(),
  remaining: z.number().int().min(0),
  created_at: Timestamp,
}).meta({ id: 'BookOrder' });

export const L3EventSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('order_added'), order: BookOrderSchema }),
  z.object({ kind: z.literal('order_updated'), order: BookOrderSchema }),
  z.object({ kind: z.literal('order_removed'), order_id: Uuid, side: Side, price: z.number().int() }),
  z.object({ kind: z.literal('trade'), maker_order_id: Uuid, taker_order_id: Uuid, price: z.number().int(), quantity: z.number().int().min(1) }),
]).meta({ id: 'L3Event' });

export const AuthenticatedMessage = z.object({
  type: z.literal('authenticated'),
  trader_id: Uuid,
  username: z.string(),
  key_id: z.string().meta({ description: 'extension: the id of the key the session authenticated with (GET /api/v1/keys lists them)' }),
  scope: z.enum(['trade', 'read']).meta({ description: 'extension: the key\'s scope; a read key\'s trading ops are rejected with insufficient_scope' }),
});

export const SnapshotMessage = z.object({
  type: z.literal('snapshot'),
  channel: z.literal('l3'),
  market: z.string(),
  sequence: Seq,
  bids: z.array(BookOrderSchema).meta({ description: 'best price first, then time priority' }),
  asks: z.array(BookOrderSchema).meta({ description: 'best price first, then time priority' }),
  epoch: Epoch,
});

export const DeltaMessage = z.object({
  type: z.literal('delta'),
  channel: z.literal('l3'),
  market: z.string(),
  sequence: z.number().int().min(1).meta({ description: 'exactly one more than the previous delta or snapshot of this market' }),
  events: z.array(L3EventSchema),
});

export const L3SubscribedMessage = z.object({
  type: z.literal('subscribed'),
  channel: z.literal('l3'),
  market: z.string(),
  last_sequence: Seq.meta({ description: 'the deltas after this sequence follow (no snapshot)' }),
  epoch: Epoch,
  already_subscribed: z
    .literal(true)
    .optional()
    .meta({ description: 'the connection already followed this market: no new snapshot is sent (unsubscribe first for a fresh one); last_sequence is the last delta queued to it' }),
});

export const TradesSubscribedMessage = z.object({ type: z.literal('subscribed'), channel: z.literal('trades'), market: z.string() });

export const UnsubscribedMessage = z.object({ type: z.literal('unsubscribed'), channel: z.string(), market: z.string().nullable().meta({ description: 'null for standings' }) });

export const TradeMessage = z.object({ type: z.literal('trade'), market: z.string(), trade: TradeSchema });

export const ResyncRequiredMessage = z.object({
  type: z.literal('resync_required'),
  channel: z.enum(['l3', 'trades', 'l2', 'account']),
  market: z.string().nullable(),
  expected_sequence: Seq.nullable(),
  current_sequence: Seq.nullable(),
  reason: z.string(),
});

// The conflated public channels (src/server/feeds/, docs/websocket.md "Conflated market data").
const L2LevelSchema = z.object({
  price: z.number().int(),
  quantity: z.number().int().min(0).meta({ description: 'the remaining quantity resting at this price; 0 in an update: the level is gone' }),
  orders: z.number().int().min(0),
});
const Depth = z.number().int().min(1).nullable().meta({ description: 'the best N levels per side the subscription asked for; null: every level' });
const L2Sequence = z.number().int().min(0).meta({ description: 'the l2 sequence of the market: +1 per update, shared by every depth' });

export const L2SnapshotMessage = z.object({
  type: z.literal('snapshot'),
  channel: z.literal('l2'),
  market: z.string(),
  sequence: L2Sequence,
  depth: Depth,
  bids: z.array(L2LevelSchema).meta({ description: 'best (highest) price first' }),
  asks: z.array(L2LevelSchema).meta({ description: 'best (lowest) price first' }),
});

export const L2UpdateMessage = z.object({
  type: z.literal('update'),
  channel: z.literal('l2'),
  market: z.string(),
  sequence: L2Sequence,
  depth: Depth,
  bids: z.array(L2LevelSchema).meta({ description: 'only the levels that changed since the previous update, with their values now' }),
  asks: z.array(L2LevelSchema),
});

const Price = z.number().int().nullable();
export const TickerMessage = z.object({
  type: z.literal('ticker'),
  channel: z.literal('ticker'),
  market: z.string(),
  best_bid: Price,
  best_bid_quantity: z.number().int().nullable(),
  best_ask: Price,
  best_ask_quantity: z.number().int().nullable(),
  last_price: Price,
  last_quantity: z.number().int().nullable(),
  volume: z.number().int().min(0).meta({ description: 'quantity traded in the session (since the log began or the last reset)' }),
  high: Price,
  low: Price,
  trades: z.number().int().min(0),
});

export const StandingsMessage = z.object({
  type: z.literal('standings'),
  channel: z.literal('standings'),
  seq: Seq.meta({ description: 'the event sequence the rows were computed at' }),
  time: Timestamp,
  rows: z.array(
    z.object({ rank: z.number().int().min(1), username: z.string(), net_pnl: z.number(), realized_pnl: z.number(), unrealized_pnl: z.number(), gross_exposure: z.number() }),
  ),
});

export const BatchMessage = z.object({
  type: z.literal('batch'),
  messages: z.array(DeltaMessage).meta({ description: 'the deltas of an l3 subscription made with "batch": true, in order' }),
});

export const SubmitAckMessage = z.object({
  type: z.literal('ack'),
  op: z.literal('submit_order'),
  request_id: RequestId,
  order: OrderSchema,
  fills: z.array(FillSchema),
  resting: z.boolean(),
  duplicate: z.literal(true).optional().meta({ description: 'present when a client_order_id repeated an order: the first order as it is now' }),
  rate_limit_remaining: RateLimitRemaining,
});

export const OrderAckMessage = z.object({
  type: z.literal('ack'),
  op: z.enum(['cancel_order', 'amend_order']),
  request_id: RequestId,
  order: OrderSchema,
  rate_limit_remaining: RateLimitRemaining,
});

export const CancelAllAckMessage = z.object({
  type: z.literal('ack'),
  op: z.literal('cancel_all'),
  request_id: RequestId,
  canceled: z.array(OrderSchema).meta({ description: 'every order canceled, oldest first' }),
  rate_limit_remaining: RateLimitRemaining,
});

export const TradingOpName = z.enum(['submit_order', 'cancel_order', 'amend_order', 'cancel_all']);

export const RejectMessage = z.object({
  type: z.literal('reject'),
  op: TradingOpName,
  request_id: RequestId,
  code: Code,
  message: z.string(),
  rate_limit_remaining: RateLimitRemaining,
  retry_after_ms: z.number().int().min(0).optional().meta({ description: 'with rate_limit_exceeded: milliseconds until the budget admits the op again' }),
});

export const ErrorMessage = z.object({
  type: z.literal('error'),
  code: Code,
  message: z.string(),
  request_id: z.string().optional().meta({ description: 'present when the offending frame carried one' }),
});

export const PongMessage = z.object({ type: z.literal('pong'), request_id: RequestId });

export const FillMessage = z.object({ type: z.literal('fill'), fill: FillSchema, user_sequence: z.number().int().min(1) });

export const OrderStateMessage = z.object({
  type: z.literal('order_state'),
  order: OrderSchema,
  status: z.enum(['open', 'filled', 'canceled', 'expired']),
  user_sequence: z.number().int().min(1),
});

export const AdminMessageMessage = z.object({
  type: z.literal('admin_message'),
  message: z.object({
    message_id: Uuid,
    target_username: z.string().nullable(),
    target_trader_id: Uuid.nullable(),
    market: z.string().nullable(),
    level: z.enum(['info', 'warning', 'critical']),
    title: z.string().nullable(),
    body: z.string(),
    created_at: Timestamp,
  }),
});

export const HeartbeatMessage = z.object({
  type: z.literal('heartbeat'),
  time: Timestamp,
  epoch: Epoch,
  sequences: z.record(z.string(), Seq).meta({ description: 'the current l3 sequence of every subscribed market' }),
});

const U = '11111111-1111-4111-8111-111111111111';
const T = '22222222-2222-4222-8222-222222222222';
const O = '33333333-3333-4333-8333-333333333333';
const M = '44444444-4444-4444-8444-444444444444';
const AT = '2026-01-01T12:00:00.000000Z';
const exampleOrder = {
  id: O, trader_id: T, market: 'BTC-USD', side: 'BUY', price: 100, quantity: 5, remaining: 3, created_at: AT, client_order_id: 'bot-1',
  type: 'LIMIT', time_in_force: 'GTC', self_trade_prevention: 'NONE', status: 'open', average_fill_price: 100,
} as const;
const exampleFill = { fill_id: U, market: 'BTC-USD', maker_order_id: M, taker_order_id: O, price: 100, quantity: 2, occurred_at: AT, fee: 0.02, liquidity: 'taker' } as const;
const exampleBookOrder = { order_id: O, side: 'BUY', price: 100, remaining: 3, created_at: AT } as const;

export interface MessageDescription {
  readonly schema: z.ZodType;
  readonly summary: string;
  readonly examples: readonly unknown[];
}

/** Every server-to-client frame, by a name unique in the AsyncAPI document. */
export const SERVER_MESSAGES = {
  authenticated: { schema: AuthenticatedMessage, summary: 'The api_key was accepted', examples: [{ type: 'authenticated', trader_id: T, username: 'alice', key_id: '3f2a9c1e-7b4d-0a5e-9c8b-1d2e3f405162', scope: 'trade' }] },
  snapshot: {
    schema: SnapshotMessage,
    summary: 'The whole l3 book of a market, the answer to a subscribe',
    examples: [{ type: 'snapshot', channel: 'l3', market: 'BTC-USD', sequence: 42, bids: [exampleBookOrder], asks: [], epoch: 'e1c4d3a0' }],
  },
  delta: {
    schema: DeltaMessage,
    summary: 'The l3 changes of one command, in order',
    examples: [{ type: 'delta', channel: 'l3', market: 'BTC-USD', sequence: 43, events: [{ kind: 'trade', maker_order_id: M, taker_order_id: O, price: 100, quantity: 2 }, { kind: 'order_removed', order_id: M, side: 'SELL', price: 100 }, { kind: 'order_added', order: exampleBookOrder }] }],
  },
  l3_subscribed: {
    schema: L3SubscribedMessage,
    summary: 'A resume with last_sequence was honoured (the missed deltas follow instead of a snapshot), or the market was already followed (already_subscribed)',
    examples: [
      { type: 'subscribed', channel: 'l3', market: 'BTC-USD', last_sequence: 40, epoch: 'e1c4d3a0' },
      { type: 'subscribed', channel: 'l3', market: 'BTC-USD', last_sequence: 41, epoch: 'e1c4d3a0', already_subscribed: true },
    ],
  },
  trades_subscribed: { schema: TradesSubscribedMessage, summary: 'Subscribed to the trades channel of a market', examples: [{ type: 'subscribed', channel: 'trades', market: 'BTC-USD' }] },
  unsubscribed: { schema: UnsubscribedMessage, summary: 'The subscription ended', examples: [{ type: 'unsubscribed', channel: 'l3', market: 'BTC-USD' }] },
  trade: {
    schema: TradeMessage,
    summary: 'One execution on the public trades channel',
    examples: [{ type: 'trade', market: 'BTC-USD', trade: { trade_id: U, price: 100, quantity: 2, taker_side: 'BUY', occurred_at: AT, seq: 77 } }],
  },
  resync_required: {
    schema: ResyncRequiredMessage,
    summary: 'The client fell behind: subscribe again (l3: for a fresh snapshot; account: re-read orders and positions)',
    examples: [
      { type: 'resync_required', channel: 'l3', market: 'BTC-USD', expected_sequence: 44, current_sequence: 90, reason: 'market data lagged; resubscribe for a fresh snapshot' },
      { type: 'resync_required', channel: 'account', market: null, expected_sequence: null, current_sequence: null, reason: 'admin reset all users' },
    ],
  },
  submit_ack: {
    schema: SubmitAckMessage,
    summary: 'submit_order accepted: the order, its fills, whether it rests',
    examples: [{ type: 'ack', op: 'submit_order', request_id: 'r1', order: exampleOrder, fills: [exampleFill], resting: true, rate_limit_remaining: 19 }],
  },
  order_ack: {
    schema: OrderAckMessage,
    summary: 'cancel_order or amend_order accepted: the order as it is now',
    examples: [{ type: 'ack', op: 'cancel_order', request_id: 'r2', order: { ...exampleOrder, status: 'canceled' } }],
  },
  cancel_all_ack: {
    schema: CancelAllAckMessage,
    summary: 'cancel_all accepted: every order it canceled',
    examples: [{ type: 'ack', op: 'cancel_all', request_id: 'r3', canceled: [{ ...exampleOrder, status: 'canceled' }] }],
  },
  reject: {
    schema: RejectMessage,
    summary: 'A trading op was refused; nothing changed',
    examples: [
      { type: 'reject', op: 'submit_order', request_id: 'r4', code: 'tick_size_violation', message: ERRORS.tick_size_violation.message },
      { type: 'reject', op: 'submit_order', request_id: 'r5', code: 'rate_limit_exceeded', message: 'per-user rate limit exceeded: max 20 ops/sec', rate_limit_remaining: 0, retry_after_ms: 50 },
    ],
  },
  error: {
    schema: ErrorMessage,
    summary: 'A frame could not be understood or is not allowed (protocol error)',
    examples: [{ type: 'error', code: 'invalid_message', message: 'malformed JSON' }, { type: 'error', code: 'invalid_message', message: 'unknown op "x"; expected one of ...', request_id: 'r6' }],
  },
  pong: { schema: PongMessage, summary: 'The answer to ping', examples: [{ type: 'pong', request_id: 'p1' }] },
  fill: { schema: FillMessage, summary: 'Private: one of your orders traded', examples: [{ type: 'fill', fill: exampleFill, user_sequence: 7 }] },
  order_state: { schema: OrderStateMessage, summary: 'Private: one of your orders changed', examples: [{ type: 'order_state', order: exampleOrder, status: 'open', user_sequence: 8 }] },
  admin_message: {
    schema: AdminMessageMessage,
    summary: 'An announcement of the organisers',
    examples: [{ type: 'admin_message', message: { message_id: U, target_username: null, target_trader_id: null, market: null, level: 'info', title: 'Welcome', body: 'Trading starts at noon', created_at: AT } }],
  },
  l2_snapshot: {
    schema: L2SnapshotMessage,
    summary: 'The price levels of a market (channel l2), the answer to a subscribe',
    examples: [{ type: 'snapshot', channel: 'l2', market: 'BTC-USD', sequence: 17, depth: null, bids: [{ price: 100, quantity: 5, orders: 2 }], asks: [{ price: 101, quantity: 3, orders: 1 }] }],
  },
  l2_update: {
    schema: L2UpdateMessage,
    summary: 'At most one per market per interval: the l2 levels that changed (quantity 0: gone)',
    examples: [{ type: 'update', channel: 'l2', market: 'BTC-USD', sequence: 18, depth: null, bids: [{ price: 100, quantity: 0, orders: 0 }, { price: 99, quantity: 4, orders: 1 }], asks: [] }],
  },
  ticker: {
    schema: TickerMessage,
    summary: 'Best bid and ask, last trade, session volume, high and low; at once on subscribe, then at most once per interval when it changed',
    examples: [{ type: 'ticker', channel: 'ticker', market: 'BTC-USD', best_bid: 100, best_bid_quantity: 5, best_ask: 101, best_ask_quantity: 3, last_price: 100, last_quantity: 2, volume: 840, high: 104, low: 97, trades: 131 }],
  },
  standings: {
    schema: StandingsMessage,
    summary: 'The live leaderboard (only when PUBLIC_STANDINGS=true): at once on subscribe, then at most once a second when it changed',
    examples: [{ type: 'standings', channel: 'standings', seq: 5120, time: AT, rows: [{ rank: 1, username: 'alice', net_pnl: 125.5, realized_pnl: 100, unrealized_pnl: 25.5, gross_exposure: 1010 }] }],
  },
  batch: {
    schema: BatchMessage,
    summary: 'The deltas of a batched l3 subscription due within one turn of the event loop, in one frame',
    examples: [{ type: 'batch', messages: [{ type: 'delta', channel: 'l3', market: 'BTC-USD', sequence: 44, events: [{ kind: 'order_added', order: exampleBookOrder }] }] }],
  },
  heartbeat: { schema: HeartbeatMessage, summary: 'Sent every few seconds to every connection', examples: [{ type: 'heartbeat', time: AT, epoch: 'e1c4d3a0', sequences: { 'BTC-USD': 43 } }] },
} as const satisfies Record<string, MessageDescription>;

export type ServerMessageName = keyof typeof SERVER_MESSAGES;
export type ServerMessageOf<K extends ServerMessageName> = z.infer<(typeof SERVER_MESSAGES)[K]['schema']>;
export type ServerMessage = { [K in ServerMessageName]: ServerMessageOf<K> }[ServerMessageName];

type DeepReadonly<T> = T extends readonly (infer U)[] ? readonly DeepReadonly<U>[] : T extends object ? { readonly [K in keyof T]: DeepReadonly<T[K]> } : T;
/** What a frame builder may pass: the schema's type, with the server's readonly views accepted. */
export type Frame<K extends ServerMessageName> = DeepReadonly<ServerMessageOf<K>>;
