// The shape of every event, for reading logs from outside the process (an NDJSON export, the
// database): a log an auditor checks must be well formed before it is folded.
import { z } from 'zod';
import type { RecordedEvent } from './upcasters/upcast.ts';
import { MAX_FEE_E4, SCHEMA_VERSION } from './types.ts';

const Int = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const Pos = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
const Id = z.string().min(1).max(128);
const Side = z.enum(['BUY', 'SELL']);
const Time = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/, 'RFC 3339 UTC with microseconds');

const marketDefinitionFields = {
  market_id: z.string(),
  display_name: z.string(),
  base_asset: z.string(),
  quote_asset: z.string(),
  tick_size: Pos,
  min_order_quantity: Pos,
  reference_price: Pos.nullable(),
  enabled: z.boolean(),
};
const MarketDefinition = z.strictObject(marketDefinitionFields);
const marketChangesFields = { display_name: z.string().optional(), tick_size: Pos.optional(), min_order_quantity: Pos.optional(), reference_price: Pos.optional(), enabled: z.boolean().optional() };

// Version 3: the rules of a market (competition-rules.md), named in a definition only where they
// differ from the defaults, and the fees of each fill, in ten-thousandths of the quote asset.
const MakerFeeBps = z.number().int().min(-100).max(100);
const TakerFeeBps = z.number().int().min(0).max(100);
const MarketDefinitionV3 = z.strictObject({
  ...marketDefinitionFields,
  maker_fee_bps: MakerFeeBps.optional(),
  taker_fee_bps: TakerFeeBps.optional(),
  position_limit: Pos.optional(),
  max_open_orders: Pos.optional(),
});
const marketChangesFieldsV3 = {
  ...marketChangesFields,
  maker_fee_bps: MakerFeeBps.optional(),
  taker_fee_bps: TakerFeeBps.optional(),
  position_limit: Pos.optional(),
  max_open_orders: Pos.nullable().optional(),
};
const FeeE4 = z.number().int().min(-MAX_FEE_E4).max(MAX_FEE_E4);

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
const fillFields = { fill_id: Id, maker_order_id: Id, maker_trader_id: Id, price: Pos, quantity: Pos, maker_remaining: Int };
const Fill = z.strictObject(fillFields);
const FillV3 = z.strictObject({ ...fillFields, maker_fee_e4: FeeE4.optional(), taker_fee_e4: FeeE4.optional() });

/** What version 3 changed in the events the versions before it share: the market's rules. */
interface MarketShapes<D extends z.core.$ZodType, C extends z.core.$ZodShape> {
  readonly definition: D;
  readonly changes: C;
}
const MARKETS_V1: MarketShapes<typeof MarketDefinition, typeof marketChangesFields> = { definition: MarketDefinition, changes: marketChangesFields };
const MARKETS_V3: MarketShapes<typeof MarketDefinitionV3, typeof marketChangesFieldsV3> = { definition: MarketDefinitionV3, changes: marketChangesFieldsV3 };

// Event types whose data no schema version has changed but for the market's rules; `head` says which
// version they belong to. Version 2 lets the events of actions a schedule can run name the entry
// (`mark`); version 3 lets a market's definition and changes carry its rules (`markets`).
function unchanged<H extends z.core.$ZodShape, M extends z.core.$ZodShape, D extends z.core.$ZodType, C extends z.core.$ZodShape>(head: H, mark: M, markets: MarketShapes<D, C>) {
  return [
    z.strictObject({ ...head, type: z.literal('TraderProvisioned'), data: z.strictObject({ trader_id: Id, username: z.string(), api_key_hash: z.string() }) }),
    z.strictObject({ ...head, type: z.literal('TradingReset'), data: z.strictObject({ cleared_orders: Int, cleared_positions: Int, cleared_fills: Int }) }),
    z.strictObject({ ...head, type: z.literal('TradingStarted'), data: z.strictObject({ ...mark }) }),
    z.strictObject({ ...head, type: z.literal('TradingStopped'), data: z.strictObject({ ...mark }) }),
    z.strictObject({ ...head, type: z.literal('ConfigLoaded'), data: z.strictObject({ trading_enabled: z.boolean().nullable(), markets: z.array(markets.definition) }) }),
    z.strictObject({ ...head, type: z.literal('AdminMessagePosted'), data: AdminMessage.extend(mark) }),
    z.strictObject({ ...head, type: z.literal('MarketUpserted'), data: z.strictObject({ market: markets.definition }) }),
    z.strictObject({
      ...head,
      type: z.literal('MarketPatched'),
      data: z.strictObject({
        market_id: z.string(),
        changes: z.strictObject(markets.changes),
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
  ...unchanged(headV1, {}, MARKETS_V1),
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
function operatorEvents<H extends z.core.$ZodShape>(headV2: H) {
  return [
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
}

// Versions 2 and 3: `v` names it; a version this code does not know is refused rather than guessed at.
// They differ in the market's rules and the fees of fills (version 3's) and in version 3's event types.
function laterVersion<H extends z.core.$ZodShape, D extends z.core.$ZodType, C extends z.core.$ZodShape, F extends z.core.$ZodType>(headV2: H, markets: MarketShapes<D, C>, fill: F) {
  return [
    ...unchanged(headV2, { schedule_entry: Id.optional() }, markets),
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
        fills: z.array(fill),
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
    ...operatorEvents(headV2),
  ] as const;
}

export const EventSchemaV2 = z.discriminatedUnion('type', [...laterVersion({ seq: Pos, time: Time, v: z.literal(2) }, MARKETS_V1, Fill)]);

// Version 3: the competition rules (competition-rules.md): rules per market, fees on fills, API keys.
const headV3 = { seq: Pos, time: Time, v: z.literal(SCHEMA_VERSION) };
const KeyScope = z.enum(['trade', 'read']);
export const EventSchemaV3 = z.discriminatedUnion('type', [
  ...laterVersion(headV3, MARKETS_V3, FillV3),
  z.strictObject({
    ...headV3,
    type: z.literal('ApiKeyIssued'),
    data: z.strictObject({ trader_id: Id, key_id: Id, api_key_hash: z.string(), scope: KeyScope, label: z.string().nullable(), expires_at: Time.nullable() }),
  }),
  z.strictObject({ ...headV3, type: z.literal('ApiKeyRevoked'), data: z.strictObject({ trader_id: Id, key_id: Id }) }),
]);

/** Parses one event as recorded (any known schema version); returns the problem in words, or the event. */
export function parseEvent(value: unknown): { ok: true; event: RecordedEvent } | { ok: false; problem: string } {
  const v = typeof value === 'object' && value !== null && 'v' in value ? (value as { v: unknown }).v : undefined;
  // A `v` this code does not know is checked against the current version, whose literal refuses it.
  const r = (v === undefined ? EventSchemaV1 : v === 2 ? EventSchemaV2 : EventSchemaV3).safeParse(value);
  if (r.success) return { ok: true, event: r.data as RecordedEvent };
  const issue = r.error.issues[0];
  return { ok: false, problem: issue === undefined ? 'malformed event' : `${issue.path.join('.') || '(event)'}: ${issue.message}` };
}
