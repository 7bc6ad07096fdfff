// The shape of every event, for reading logs from outside the process (an NDJSON export, the
// database): a log an auditor checks must be well formed before it is folded.
import { z } from 'zod';
import type { RecordedEvent } from './upcasters/upcast.ts';
import { SCHEMA_VERSION } from './types.ts';

const Int = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const Pos = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
const Id = z.string().min(1).max(128);
const Side = z.enum(['BUY', 'SELL']);
const Time = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/, 'RFC 3339 UTC with microseconds');

const MarketDefinition = z.strictObject({
  market_id: z.string(),
  display_name: z.string(),
  base_asset: z.string(),
  quote_asset: z.string(),
  tick_size: Pos,
  min_order_quantity: Pos,
  reference_price: Pos.nullable(),
  enabled: z.boolean(),
});

const AdminMessage = z.strictObject({
  message_id: Id,
  target_username: z.string().nullable(),
  target_trader_id: Id.nullable(),
  market: z.string().nullable(),
  level: z.enum(['info', 'warning', 'critical']),
  title: z.string().nullable(),
  body: z.string(),
});

const ClientOrderId = z.string().regex(/^[A-Za-z0-9._:-]{1,64}$/);
const OrderRefData = { order_id: Id, trader_id: Id, market: z.string(), side: Side, price: Pos };
const Fill = z.strictObject({ fill_id: Id, maker_order_id: Id, maker_trader_id: Id, price: Pos, quantity: Pos, maker_remaining: Int });

// Event types whose data no schema version has changed; `head` says which version they belong to.
// Version 2 lets the events of actions a schedule can run name the entry (`mark`).
function unchanged<H extends z.core.$ZodShape, M extends z.core.$ZodShape>(head: H, mark: M) {
  return [
    z.strictObject({ ...head, type: z.literal('TraderProvisioned'), data: z.strictObject({ trader_id: Id, username: z.string(), api_key_hash: z.string() }) }),
    z.strictObject({ ...head, type: z.literal('TradingReset'), data: z.strictObject({ cleared_orders: Int, cleared_positions: Int, cleared_fills: Int }) }),
    z.strictObject({ ...head, type: z.literal('TradingStarted'), data: z.strictObject({ ...mark }) }),
    z.strictObject({ ...head, type: z.literal('TradingStopped'), data: z.strictObject({ ...mark }) }),
    z.strictObject({ ...head, type: z.literal('ConfigLoaded'), data: z.strictObject({ trading_enabled: z.boolean().nullable(), markets: z.array(MarketDefinition) }) }),
    z.strictObject({ ...head, type: z.literal('AdminMessagePosted'), data: AdminMessage.extend(mark) }),
    z.strictObject({ ...head, type: z.literal('MarketUpserted'), data: z.strictObject({ market: MarketDefinition }) }),
    z.strictObject({
      ...head,
      type: z.literal('MarketPatched'),
      data: z.strictObject({
        market_id: z.string(),
        changes: z.strictObject({ display_name: z.string().optional(), tick_size: Pos.optional(), min_order_quantity: Pos.optional(), reference_price: Pos.optional(), enabled: z.boolean().optional() }),
        ...mark,
      }),
    }),
    z.strictObject({
      ...head,
      type: z.literal('MarketSettled'),
      data: z.strictObject({ market_id: z.string(), settlement_price: Pos, canceled_orders: Int, affected_traders: Int, settled_quantity: Int, announcement: AdminMessage, ...mark }),
    }),
    z.strictObject({ ...head, type: z.literal('MarketDeleted'), data: z.strictObject({ market_id: z.string(), mark_price: z.number().nullable() }) }),
    z.strictObject({ ...head, type: z.literal('OrderAmended'), data: z.strictObject({ ...OrderRefData, previous_remaining: Pos, remaining: Pos }) }),
    z.strictObject({ ...head, type: z.literal('OrderCanceled'), data: z.strictObject({ ...OrderRefData, remaining: Pos }) }),
  ] as const;
}

// Version 1: no `v`.
const headV1 = { seq: Pos, time: Time };
export const EventSchemaV1 = z.discriminatedUnion('type', [
  ...unchanged(headV1, {}),
  z.strictObject({
    ...headV1,
    type: z.literal('OrderSubmitted'),
    data: z.strictObject({
      order: z.strictObject({ id: Id, trader_id: Id, market: z.string(), side: Side, price: Pos, quantity: Pos }),
      fills: z.array(Fill),
      remaining: Int,
    }),
  }),
]);

const headV2 = { seq: Pos, time: Time, v: z.literal(SCHEMA_VERSION) };
const OrderRefWithRemaining = z.strictObject({ ...OrderRefData, remaining: Pos });
const FrozenRow = z.strictObject({
  rank: Pos,
  trader_id: Id,
  username: z.string(),
  net_pnl: z.number(),
  realized_pnl: z.number(),
  unrealized_pnl: z.number(),
  gross_exposure: z.number(),
  disabled: z.literal(true).optional(),
});
const ScheduledActionSchema = z.discriminatedUnion('action', [
  z.strictObject({ action: z.literal('start_trading') }),
  z.strictObject({ action: z.literal('stop_trading') }),
  z.strictObject({ action: z.literal('enable_market'), market_id: z.string() }),
  z.strictObject({ action: z.literal('disable_market'), market_id: z.string() }),
  z.strictObject({ action: z.literal('settle_market'), market_id: z.string(), settlement_price: Pos, announcement: z.string().nullable() }),
  z.strictObject({
    action: z.literal('post_message'),
    level: z.enum(['info', 'warning', 'critical']),
    body: z.string(),
    title: z.string().nullable(),
    market: z.string().nullable(),
    target_username: z.string().nullable(),
  }),
]);

// Event types version 2 brought in for running a competition (docs/api.md, "Running a competition").
const OperatorEventsV2 = [
  z.strictObject({ ...headV2, type: z.literal('TradersProvisioned'), data: z.strictObject({ traders: z.array(z.strictObject({ trader_id: Id, username: z.string(), api_key_hash: z.string() })).min(1) }) }),
  z.strictObject({ ...headV2, type: z.literal('ApiKeyRotated'), data: z.strictObject({ trader_id: Id, api_key_hash: z.string() }) }),
  z.strictObject({ ...headV2, type: z.literal('TraderDisabled'), data: z.strictObject({ trader_id: Id, canceled_orders: z.array(OrderRefWithRemaining) }) }),
  z.strictObject({ ...headV2, type: z.literal('TraderEnabled'), data: z.strictObject({ trader_id: Id }) }),
  z.strictObject({ ...headV2, type: z.literal('ScheduleSet'), data: z.strictObject({ entries: z.array(z.strictObject({ entry_id: Id, at: Time, action: ScheduledActionSchema })) }) }),
  z.strictObject({ ...headV2, type: z.literal('ScheduledActionFailed'), data: z.strictObject({ schedule_entry: Id, code: z.string(), message: z.string() }) }),
  z.strictObject({
    ...headV2,
    type: z.literal('LeaderboardFrozen'),
    data: z.strictObject({ label: z.string().min(1), as_of_seq: Int, head_hash: z.string().regex(/^[0-9a-f]{64}$/), rows: z.array(FrozenRow) }),
  }),
] as const;

// Version 2: `v` names it; a version this code does not know is refused rather than guessed at.
export const EventSchemaV2 = z.discriminatedUnion('type', [
  ...unchanged(headV2, { schedule_entry: Id.optional() }),
  z.strictObject({
    ...headV2,
    type: z.literal('OrderSubmitted'),
    data: z.strictObject({
      order: z.strictObject({
        id: Id,
        trader_id: Id,
        market: z.string(),
        side: Side,
        price: Pos.nullable(),
        quantity: Pos,
        type: z.enum(['LIMIT', 'MARKET']),
        time_in_force: z.enum(['GTC', 'IOC', 'FOK', 'POST_ONLY']),
        self_trade_prevention: z.enum(['NONE', 'CANCEL_TAKER', 'CANCEL_MAKER', 'CANCEL_BOTH']),
        client_order_id: ClientOrderId.nullable(),
      }),
      fills: z.array(Fill),
      self_trade_canceled: z.array(z.strictObject({ order_id: Id, side: Side, price: Pos, remaining: Pos, after_fills: Int })),
      remaining: Int,
      status: z.enum(['open', 'filled', 'canceled', 'expired']),
    }),
  }),
  z.strictObject({
    ...headV2,
    type: z.literal('OrdersCanceled'),
    data: z.strictObject({
      trader_id: Id,
      market: z.string().nullable(),
      reason: z.enum(['request', 'disconnect']),
      orders: z.array(z.strictObject({ ...OrderRefData, remaining: Pos })),
    }),
  }),
  ...OperatorEventsV2,
]);

/** Parses one event as recorded (any known schema version); returns the problem in words, or the event. */
export function parseEvent(value: unknown): { ok: true; event: RecordedEvent } | { ok: false; problem: string } {
  const versioned = typeof value === 'object' && value !== null && 'v' in value;
  const r = (versioned ? EventSchemaV2 : EventSchemaV1).safeParse(value);
  if (r.success) return { ok: true, event: r.data as RecordedEvent };
  const issue = r.error.issues[0];
  return { ok: false, problem: issue === undefined ? 'malformed event' : `${issue.path.join('.') || '(event)'}: ${issue.message}` };
}
