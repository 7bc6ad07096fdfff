// Event and command builders for the core specs.
import { GTC_LIMIT } from '../../src/commands/order-terms.ts';
import type { CommandOf } from '../../src/commands/types.ts';
import type { EventBody, FillFact, MarketDefinition, Side } from '../../src/events/types.ts';
import type { V1EventBody } from '../../src/events/upcasters/v1.ts';

export const BTC = 'BTC-USD';
export const ETH = 'ETH-USD';
export const ALICE = '00000000-0000-4000-8000-00000000a11c';
export const BOB = '00000000-0000-4000-8000-000000000b0b';
export const CAROL = '00000000-0000-4000-8000-0000000ca401';
export const SEED = '11111111-1111-4111-8111-000000000000';

export function market(id = BTC, overrides: Partial<MarketDefinition> = {}): MarketDefinition {
  const [base = 'X', quote = 'Y'] = id.split('-');
  return { market_id: id, display_name: id, base_asset: base, quote_asset: quote, tick_size: 1, min_order_quantity: 1, reference_price: 100, enabled: true, ...overrides };
}

export function marketUpserted(id = BTC, overrides: Partial<MarketDefinition> = {}): EventBody {
  return { type: 'MarketUpserted', data: { market: market(id, overrides) } };
}

export function traderProvisioned(traderId: string, username: string): EventBody {
  return { type: 'TraderProvisioned', data: { trader_id: traderId, username, api_key_hash: `hash-${username}` } };
}

/** An order that rested whole (no fills): a plain GTC limit order, written as version 1 wrote it. */
export function orderRested(id: string, traderId: string, side: Side, price: number, quantity: number, marketId = BTC): V1EventBody {
  return { type: 'OrderSubmitted', data: { order: { id, trader_id: traderId, market: marketId, side, price, quantity }, fills: [], remaining: quantity } };
}

export function orderFilled(id: string, traderId: string, side: Side, price: number, quantity: number, fills: FillFact[], marketId = BTC): V1EventBody {
  let filled = 0;
  for (const f of fills) filled += f.quantity;
  return { type: 'OrderSubmitted', data: { order: { id, trader_id: traderId, market: marketId, side, price, quantity }, fills, remaining: quantity - filled } };
}

export function submit(traderId: string, side: Side, price: number, quantity: number, orderId = 'order-new', marketId = BTC): Omit<CommandOf<'SubmitOrder'>, 'time'> {
  return { type: 'SubmitOrder', trader_id: traderId, market: marketId, side, price, quantity, ...GTC_LIMIT, order_id: orderId, fill_id_seed: SEED };
}

/** The standard world: one market, two traders. */
export const WORLD: EventBody[] = [marketUpserted(BTC), traderProvisioned(ALICE, 'alice'), traderProvisioned(BOB, 'bob')];
