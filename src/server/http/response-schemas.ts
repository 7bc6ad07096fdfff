// The records the API answers with, as zod schemas for the OpenAPI document. They mirror
// src/projections/views.ts field for field; the OpenAPI test checks real responses against them. A
// `meta({ id })` makes a schema a named component that the document refers to.
import { z } from 'zod';

const Timestamp = z.string().meta({ description: 'RFC 3339 UTC timestamp with microseconds', example: '2026-01-01T12:00:00.000000Z' });
const Uuid = z.uuid();
const U64 = z.number().int().min(0).meta({ description: 'unsigned integer, at most 2^53-1' });
const Side = z.enum(['BUY', 'SELL']);

export const ErrorBody = z.object({ error: z.string().meta({ description: 'what went wrong, for humans; the code is in the x-error-code header' }) }).meta({ id: 'Error' });

export const OrderSchema = z.object({
  id: Uuid,
  trader_id: Uuid,
  market: z.string(),
  side: Side,
  price: U64.nullable().meta({ description: 'the limit price; null for a market order' }),
  quantity: U64.meta({ description: 'original quantity' }),
  remaining: U64.meta({ description: 'open: quantity still resting; canceled or expired: the quantity canceled; filled: 0' }),
  created_at: Timestamp,
  client_order_id: z.string().nullable().meta({ description: 'the id the trader gave the order, or null' }),
  type: z.enum(['LIMIT', 'MARKET']),
  time_in_force: z.enum(['GTC', 'IOC', 'FOK', 'POST_ONLY']),
  self_trade_prevention: z.enum(['NONE', 'CANCEL_TAKER', 'CANCEL_MAKER', 'CANCEL_BOTH']),
  status: z.enum(['open', 'filled', 'canceled', 'expired']),
  average_fill_price: z.number().nullable().meta({ description: 'quantity-weighted mean price of the fills so far; null before the first' }),
}).meta({ id: 'Order' });

export const FillSchema = z.object({
  fill_id: Uuid,
  market: z.string(),
  maker_order_id: Uuid,
  taker_order_id: Uuid,
  price: U64,
  quantity: U64,
  occurred_at: Timestamp,
  fee: z.number().meta({ description: 'the fee the caller paid on this fill, in the quote asset (exactly price * quantity * bps / 10000, at most four decimals); negative: a rebate received. A trader whose order met its own pays both sides\' fees on the one fill it sees', example: 0.03 }),
  liquidity: z.enum(['maker', 'taker']).meta({ description: 'the caller\'s side: maker (its order rested) or taker (its order came in; also a fill between the caller\'s own orders)' }),
}).meta({ id: 'Fill' });

export const PositionSchema = z.object({
  market: z.string(),
  net_quantity: z.number().int().meta({ description: 'positive long, negative short' }),
  average_entry_price: z.number().nullable().meta({ description: 'null while the position is flat' }),
  realized_pnl: z.number().meta({ description: 'after fees' }),
  fees: z.number().meta({ description: 'fees paid in this market (negative: rebates received), in the quote asset' }),
  updated_at: Timestamp,
}).meta({ id: 'Position' });

export const MarketSchema = z.object({
  market_id: z.string().meta({ example: 'BTC-USD' }),
  display_name: z.string(),
  base_asset: z.string(),
  quote_asset: z.string(),
  tick_size: U64,
  min_order_quantity: U64,
  reference_price: U64.nullable(),
  settlement_price: U64.nullable(),
  status: z.enum(['enabled', 'disabled', 'settled']),
  created_at: Timestamp,
  updated_at: Timestamp,
  maker_fee_bps: z.number().int().min(-100).max(100).meta({ description: 'basis points of price * quantity charged to the resting side of each fill; negative: a rebate paid to it' }),
  taker_fee_bps: z.number().int().min(0).max(100).meta({ description: 'basis points of price * quantity charged to the incoming side of each fill' }),
  position_limit: U64.meta({ description: 'the worst-case net position bound of each trader in this market (default 1000)' }),
  max_open_orders: U64.nullable().meta({ description: 'resting orders one trader may have in this market; null: no cap' }),
}).meta({ id: 'Market' });

export const ControlsSchema = z.object({ trading_enabled: z.boolean(), updated_at: Timestamp }).meta({ id: 'ExchangeControls' });

export const TraderProfileSchema = z.object({
  trader_id: Uuid,
  username: z.string(),
  api_key: z.string().meta({ description: '`exch_` and 32 lowercase hex characters', example: 'exch_0123456789abcdef0123456789abcdef' }),
  created_at: Timestamp,
}).meta({ id: 'TraderProfile' });

export const LeaderboardRowSchema = z.object({
  rank: z.number().int().min(1),
  trader_id: Uuid,
  username: z.string(),
  net_pnl: z.number().meta({ description: 'realized (after fees) plus unrealized' }),
  realized_pnl: z.number().meta({ description: 'after fees' }),
  unrealized_pnl: z.number(),
  gross_exposure: z.number(),
  disabled: z.literal(true).optional().meta({ description: 'present (true) only on the row of a disabled trader' }),
}).meta({ id: 'LeaderboardRow' });

export const TraderAccountSchema = z.object({
  trader_id: Uuid,
  username: z.string(),
  created_at: Timestamp,
  disabled: z.boolean(),
}).meta({ id: 'TraderAccount' });

export const BulkProfilesResponse = z.object({ profiles: z.array(TraderProfileSchema).meta({ description: 'every new profile, in the order of the request' }) });

export const DisabledResponse = z.object({
  trader: TraderAccountSchema,
  canceled_orders: z.array(z.object({ order_id: Uuid, trader_id: Uuid, market: z.string(), side: z.enum(['BUY', 'SELL']), price: z.number(), remaining: z.number().int() })),
});

export const ScheduleEntrySchema = z.object({
  entry_id: Uuid,
  at: Timestamp,
  action: z.enum(['start_trading', 'stop_trading', 'enable_market', 'disable_market', 'settle_market', 'post_message']),
  market_id: z.string().optional(),
  settlement_price: z.number().optional(),
  announcement: z.string().nullable().optional(),
  level: z.enum(['info', 'warning', 'critical']).optional(),
  body: z.string().optional(),
  title: z.string().nullable().optional(),
  market: z.string().nullable().optional(),
  target_username: z.string().nullable().optional(),
  status: z.enum(['pending', 'ran', 'failed']),
  scheduled_seq: z.number().int().meta({ description: 'the seq of the ScheduleSet event that set it' }),
  seq: z.number().int().nullable().meta({ description: 'the seq of the event it produced, once done' }),
  ran_at: Timestamp.nullable(),
  error: z.string().nullable().meta({ description: 'code: message of the refusal, when status is failed' }),
}).meta({ id: 'ScheduleEntry' });

export const ScheduleSchema = z.object({
  pending: z.array(ScheduleEntrySchema).meta({ description: 'in the order they will run' }),
  done: z.array(ScheduleEntrySchema).meta({ description: 'in the order they ran' }),
}).meta({ id: 'Schedule' });

export const OfficialStandingsSchema = z.object({
  label: z.string(),
  seq: z.number().int().meta({ description: 'the seq of the LeaderboardFrozen event' }),
  frozen_at: Timestamp,
  as_of_seq: z.number().int().meta({ description: 'the standings are the leaderboard after this event' }),
  head_hash: z.string().regex(/^[0-9a-f]{64}$/).meta({ description: 'the chain hash of the log at as_of_seq' }),
  rows: z.array(LeaderboardRowSchema),
}).meta({ id: 'OfficialStandings' });

export const AdminMessageEntrySchema = z.object({
  message_id: Uuid,
  target_username: z.string().nullable(),
  target_trader_id: Uuid.nullable(),
  market: z.string().nullable(),
  level: z.enum(['info', 'warning', 'critical']),
  title: z.string().nullable(),
  body: z.string(),
  created_at: Timestamp,
}).meta({ id: 'AdminMessageEntry' });

const PersistenceMode = z.enum(['disabled', 'ok', 'retrying', 'backpressured', 'stopped']);

export const HealthPersistenceSchema = z.object({
  backend: z.enum(['in_memory', 'postgres']),
  mode: PersistenceMode,
  queue_depth: z.number().int().min(0),
  last_error: z.string().nullable(),
});

export const PersistenceStatusSchema = HealthPersistenceSchema.extend({
  in_flight_ops: z.number().int().min(0),
  total_enqueued: z.number().int().min(0),
  total_flushes: z.number().int().min(0),
  flush_latency_ms: z
    .object({ last: z.number().nullable(), p50: z.number().nullable(), p99: z.number().nullable(), max: z.number().nullable() })
    .optional()
    .meta({ description: 'PostgreSQL backend only' }),
  durable_seq: z.number().int().min(0).optional().meta({ description: 'PostgreSQL backend only: the newest seq known to be committed' }),
}).meta({ id: 'PersistenceStatus' });

const PracticeStandingSchema = z.object({
  trader_id: Uuid,
  username: z.string(),
  recorded_pnl: z.number().nullable().meta({ description: "the trader's marked net PnL in the recording at the end of the played part; null for a trader the recording does not have" }),
  practice_pnl: z.number().meta({ description: 'marked net PnL in the practice exchange at the end of the played part, as its leaderboard ranks it' }),
  rank: z.number().int().min(1),
}).meta({ id: 'PracticeStanding' });

export const PracticeReportSchema = z.object({
  faithful: z.boolean().meta({ description: 'no recorded command diverged' }),
  diverged: U64.meta({ description: 'recorded commands skipped (made impossible) or with another outcome than recorded (filled quantity, accepted or refused)' }),
  you: z.object({ trader_id: Uuid, username: z.string(), pnl: z.number(), rank: z.number().int().min(1) }),
  standings: z.array(PracticeStandingSchema).meta({ description: 'every trader of the practice exchange, in leaderboard order' }),
}).meta({ id: 'PracticeReport' });

export const PracticeStatusSchema = z.object({
  state: z.enum(['running', 'paused', 'finished']),
  speed: z.union([z.number().positive(), z.literal('max')]).meta({ description: 'simulated time runs this many times faster than the wall clock; max: no waiting' }),
  simulated_time: Timestamp,
  commands_replayed: U64.meta({ description: 'recorded commands played so far (those skipped as diverged included)' }),
  commands_total: U64.meta({ description: 'recorded commands in the played part' }),
  diverged: U64,
  report: PracticeReportSchema.optional().meta({ description: 'once finished' }),
}).meta({ id: 'PracticeStatus' });

export const HealthSchema = z.object({
  status: z.enum(['ok', 'degraded']),
  service: z.literal('exchange'),
  now: Timestamp,
  persistence: HealthPersistenceSchema,
  role: z.enum(['leader', 'follower', 'standby']).optional().meta({ description: 'cluster mode (ROLE set): this node\'s role' }),
  admitting: z.boolean().optional().meta({ description: 'cluster mode (ROLE set): true when this node admits commands (a leader holding its database session)' }),
  replication: z
    .object({
      seq: z.number().int().min(0).meta({ description: 'the newest seq this node holds' }),
      head_seq: z.number().int().min(0).meta({ description: 'the newest seq this node knows the log holds' }),
      lag_events: z.number().int().min(0),
      lag_ms: z.number().int().min(0).meta({ description: 'how long this node has known of an event it has not folded yet (0 when caught up)' }),
      fenced: z.string().optional().meta({ description: 'a leader that stopped admitting says why' }),
    })
    .optional()
    .meta({ description: 'present in cluster mode (ROLE set)' }),
  practice: PracticeStatusSchema.optional().meta({ description: 'a practice exchange only (npm run practice; docs/practice.md): its play, as GET /api/v1/practice' }),
}).meta({ id: 'Health' });

export const SubmitOrderResponse = z.object({
  order: OrderSchema,
  fills: z.array(FillSchema),
  resting: z.boolean(),
  duplicate: z.literal(true).optional().meta({ description: 'present on the 200 answer to a repeated client_order_id: the first order as it is now, with all its fills so far' }),
});

export const CancelAllResponse = z.object({ canceled: z.array(OrderSchema).meta({ description: 'every order canceled, oldest first' }) });

const Cursor = z.string().nullable().meta({ description: 'pass as `before` for the next (older) page; null on the last page' });

export const FillsPage = z.object({ fills: z.array(FillSchema), next: Cursor });
export const OrdersPage = z.object({ orders: z.array(OrderSchema), next: Cursor });

export const TradeSchema = z.object({
  trade_id: Uuid,
  price: U64,
  quantity: U64,
  taker_side: Side,
  occurred_at: Timestamp,
  seq: z.number().int().min(1).meta({ description: 'the log seq of the command that traded' }),
}).meta({ id: 'Trade' });

export const TradesPage = z.object({ trades: z.array(TradeSchema), next: Cursor });

export const CandleSchema = z.object({
  start: Timestamp,
  open: U64,
  high: U64,
  low: U64,
  close: U64,
  volume: U64,
  trades: z.number().int().min(1),
}).meta({ id: 'Candle' });

export const CandlesResponse = z.object({ candles: z.array(CandleSchema) });

export const OrderResponse = z.object({ order: OrderSchema });

export const PortfolioSchema = z.object({
  trader_id: Uuid,
  position_limit: z.literal(1000).meta({ description: 'the position limit of a market that sets none (exchange-service.md); each market\'s own is in position_limits and on its Market' }),
  position_limits: z.record(z.string(), U64).meta({ description: 'every market\'s position limit, by market_id' }),
  positions: z.array(PositionSchema),
});

export const ApiKeySchema = z.object({
  key_id: z.string().meta({ description: 'names the key (to revoke it); not a secret' }),
  scope: z.enum(['trade', 'read']).meta({ description: 'trade: everything a key may do; read: every trader GET and WebSocket authenticate, no order entry, amend or cancel' }),
  label: z.string().nullable(),
  created_at: Timestamp,
  expires_at: Timestamp.nullable().meta({ description: 'from then on the key is refused as an unknown key is (401); null: never' }),
  last_used_at: Timestamp.nullable().meta({ description: 'the last request or WebSocket authenticate with the key (to about a second), null if never used' }),
  primary: z.boolean().meta({ description: 'the key provisioning (or the last rotation) gave the trader, which POST .../rotate-key replaces' }),
}).meta({ id: 'ApiKey' });

export const IssuedKeyResponse = z.object({
  key: ApiKeySchema,
  api_key: z.string().meta({ description: 'the secret, shown only in this answer: `exch_` and 32 lowercase hex characters', example: 'exch_0123456789abcdef0123456789abcdef' }),
});

export const ProfileResponse = z.object({ profile: TraderProfileSchema });

export const ResetResponse = z.object({ cleared_orders: z.number().int().min(0), cleared_positions: z.number().int().min(0), cleared_fills: z.number().int().min(0) });

export const StateHashResponse = z
  .object({
    seq: z.number().int().min(0),
    state_hash: z.string().regex(/^[0-9a-f]{64}$/),
    /** The log's chain hash at seq (the genesis hash, 64 zeros, for an empty log). */
    chain_hash: z.string().regex(/^[0-9a-f]{64}$/),
    /** The definition of state_hash (3: the live state and the chain hash; docs/replay.md). */
    hash_version: z.literal(3),
  })
  .meta({ id: 'StateHash' });

const Count = z.number().int();
export const LimitsSchema = z
  .object({
    per_user_requests_per_second: Count,
    per_user_burst: Count,
    admission_queue_per_trader: Count,
    ws_abuse_multiple: Count,
    ws_abuse_seconds: Count,
    ws_max_connections: Count,
    ws_max_connections_per_trader: Count,
    ws_max_anonymous_per_address: Count,
    ws_idle_timeout_ms: Count,
    ws_max_subscriptions: Count,
    ws_snapshots_per_second: Count,
    admin_auth_failures_per_minute: Count,
    http_headers_timeout_ms: Count,
    http_request_timeout_ms: Count,
    http_keep_alive_timeout_ms: Count,
    http_max_header_bytes: Count,
    cors_allowed_origins: z.array(z.string()),
  })
  .meta({ id: 'Limits', description: 'The fair-access limits in force, each set by the environment variable of the same name in upper case (README, docs/api.md "Limits")' });

export const AdminStateSchema = z.object({
  controls: ControlsSchema,
  markets: z.array(MarketSchema),
  recent_messages: z.array(AdminMessageEntrySchema),
  persistence: PersistenceStatusSchema,
  limits: LimitsSchema,
});

export const ControlsResponse = z.object({ controls: ControlsSchema });

export const ConfigLoadResponse = z.object({ controls: ControlsSchema, markets: z.array(MarketSchema) });

export const SettlementSchema = z.object({
  market: MarketSchema,
  canceled_orders: z.number().int().min(0),
  affected_traders: z.number().int().min(0),
  settled_quantity: z.number().int().min(0),
  settlement_price: U64,
});

export const DeletedMarketResponse = z.object({ market_id: z.string() });

/** One line of GET /api/v1/admin/events: a sequenced event in canonical JSON. */
export const EventLineSchema = z.object({
  seq: z.number().int().min(1),
  time: Timestamp,
  type: z.string(),
  data: z.record(z.string(), z.unknown()),
}).meta({ id: 'Event' });
