// Request shapes, shared by REST and WebSocket. They check structure and types only; value rules
// (ranges, tick sizes, market state) belong to decide, which applies them in the specification's order
// of admission checks. So a negative price parses here and is refused there as `invalid_price`, after
// `trading_disabled` and the market checks, exactly as the specification orders them.
import { z } from 'zod';

export const Side = z.enum(['BUY', 'SELL']);
export const MessageLevel = z.enum(['info', 'warning', 'critical']);

/**
 * Numbers any JSON number may fill; decide checks they are integers in 1..2^53-1. JSON.parse turns an
 * overlong literal such as 1e400 into Infinity, which z.number() refuses as a type error (a 400 before
 * admission); mapping it to the largest finite double keeps it a value problem, refused by decide as
 * `invalid_price`/`invalid_quantity` in the specification's order, after `trading_disabled` and the market.
 */
export function infinityAsMax(v: unknown): unknown {
  return v === Infinity ? Number.MAX_VALUE : v === -Infinity ? -Number.MAX_VALUE : v;
}
const Num = z.preprocess(infinityAsMax, z.number());

export const OrderType = z.enum(['LIMIT', 'MARKET']);
export const TimeInForce = z.enum(['GTC', 'IOC', 'FOK', 'POST_ONLY']);
export const SelfTradePrevention = z.enum(['NONE', 'CANCEL_TAKER', 'CANCEL_MAKER', 'CANCEL_BOTH']);
export const CLIENT_ORDER_ID = /^[A-Za-z0-9._:-]{1,64}$/;
export const ClientOrderId = z.string().regex(CLIENT_ORDER_ID, 'expected 1 to 64 characters of A-Z a-z 0-9 . _ : -');

/** Whether an order body lacks the price it needs: a limit order needs one (a market order must not carry one, which decide refuses, in the spec's order). */
export function lacksPrice(body: { readonly price?: unknown; readonly type?: unknown }): boolean {
  return body.price === undefined && body.type !== 'MARKET';
}

export function requirePriceOfLimitOrder(body: { price?: number | undefined; type?: string | undefined }, ctx: z.RefinementCtx): void {
  if (lacksPrice(body)) ctx.addIssue({ code: 'custom', path: ['price'], message: 'price is required', input: undefined });
}

export const SubmitOrderFields = z.object({
  // No length cap here: the symbol is checked by decide, after trading_disabled, as the spec orders it.
  market: z.string(),
  side: Side,
  // Required for a limit order (requirePriceOfLimitOrder); decide refuses one on a market order.
  price: Num.optional(),
  quantity: Num,
  client_order_id: ClientOrderId.optional(),
  type: OrderType.optional(),
  time_in_force: TimeInForce.optional(),
  self_trade_prevention: SelfTradePrevention.optional(),
});

export const SubmitOrderBody = SubmitOrderFields.superRefine(requirePriceOfLimitOrder);
export type SubmitOrderBody = z.infer<typeof SubmitOrderBody>;

export const AmendOrderBody = z.object({ remaining: Num });
export type AmendOrderBody = z.infer<typeof AmendOrderBody>;

// A market's rules (competition-rules.md): any number here; decide checks each one's range and refuses
// one out of it with 400 invalid_market_rule naming the field.
const marketRuleFields = {
  maker_fee_bps: Num.optional().meta({ description: 'fee on the resting side of each fill, in basis points of price * quantity: an integer from -100 to 100 (negative: a rebate); default 0' }),
  taker_fee_bps: Num.optional().meta({ description: 'fee on the incoming side of each fill, in basis points of price * quantity: an integer from 0 to 100; default 0' }),
  position_limit: Num.optional().meta({ description: 'the worst-case net position bound per trader: an integer > 0; default 1000' }),
};

export const MarketDefinitionBody = z.object({
  market_id: z.string().max(128),
  base_asset: z.string().max(64),
  quote_asset: z.string().max(64),
  tick_size: Num,
  min_order_quantity: Num,
  reference_price: Num.nullable(),
  enabled: z.boolean(),
  display_name: z.string().max(256).nullable().optional(),
  ...marketRuleFields,
  max_open_orders: Num.nullable().optional().meta({ description: 'resting orders one trader may have in the market: an integer > 0, or null (the default) for no cap' }),
});
export type MarketDefinitionBody = z.infer<typeof MarketDefinitionBody>;

export const MarketPatchBody = z.object({
  display_name: z.string().max(256).optional(),
  tick_size: Num.optional(),
  min_order_quantity: Num.optional(),
  reference_price: Num.optional(),
  enabled: z.boolean().optional(),
  ...marketRuleFields,
  max_open_orders: Num.nullable().optional().meta({ description: 'an integer > 0, or null to lift the cap' }),
});
export type MarketPatchBody = z.infer<typeof MarketPatchBody>;

export const SettleMarketBody = z.object({
  settlement_price: Num,
  announcement: z.string().max(4096).nullable().optional(),
});
export type SettleMarketBody = z.infer<typeof SettleMarketBody>;

export const ConfigLoadBody = z.object({
  trading_enabled: z.boolean().optional(),
  markets: z.array(MarketDefinitionBody).max(1000).default([]),
});
export type ConfigLoadBody = z.infer<typeof ConfigLoadBody>;

// The body limit (64 KiB) bounds it; decide trims it and then applies the 64-character rule.
export const CreateUserBody = z.object({ username: z.string() });
export type CreateUserBody = z.infer<typeof CreateUserBody>;

export const AdminMessageBody = z.object({
  target_username: z.string().max(1024).nullable().optional(),
  market: z.string().max(128).nullable().optional(),
  level: MessageLevel,
  title: z.string().max(256).nullable().optional(),
  body: z.string().max(16384),
});
export type AdminMessageBody = z.infer<typeof AdminMessageBody>;
