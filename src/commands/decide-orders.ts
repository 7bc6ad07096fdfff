// Deciding trader commands: submission with its admission checks in the specification's order and the
// matching it records, amend, cancel.
import type { EventBody, FillFact } from '../events/types.ts';
import type { ExchangeState } from '../projections/exchange-state.ts';
import type { RestingOrder } from '../projections/order-book.ts';
import { applyTrade, type PositionValues } from '../projections/position-math.ts';
import { DomainError, fail, positionLimitText } from './errors.ts';
import { fillId } from './fill-ids.ts';
import { isMarketSymbol, isPositiveInteger, MAX_MARK_PRICE, POSITION_LIMIT } from './rules.ts';
import type { CommandOf } from './types.ts';

export function decideSubmitOrder(state: ExchangeState, c: CommandOf<'SubmitOrder'>): EventBody {
  // 1. Global trading control.
  if (!state.markets.controls.trading_enabled) fail('trading_disabled');
  // 2. The market.
  if (!isMarketSymbol(c.market)) fail('invalid_market');
  const market = state.markets.get(c.market);
  if (market === undefined) fail('market_not_configured', `market ${c.market} is not configured`);
  if (market.status === 'disabled') fail('market_disabled', `market ${c.market} is disabled`);
  if (market.status === 'settled') fail('market_settled', `market ${c.market} is settled`);
  // 3. Price.
  if (!isPositiveInteger(c.price)) fail('invalid_price');
  if (c.price % market.tick_size !== 0) fail('tick_size_violation', `price ${c.price} is not a multiple of the tick size ${market.tick_size}`);
  // 4. Quantity.
  if (!isPositiveInteger(c.quantity)) fail('invalid_quantity');
  if (c.quantity < market.min_order_quantity) fail('quantity_below_minimum', `quantity ${c.quantity} is below the minimum order quantity ${market.min_order_quantity}`);
  // 5. Worst case: every resting order of this side and the new one fill, on top of the position.
  const exposure = state.books.exposure(c.trader_id, c.market);
  const net = state.positions.net(c.trader_id, c.market);
  const projected = c.side === 'BUY' ? net + exposure.buy + c.quantity : net - exposure.sell - c.quantity;
  if (Math.abs(projected) > POSITION_LIMIT) fail('position_limit_exceeded', positionLimitText(c.market, projected));
  // Every fill of this order is at most its notional (a buy pays at most its limit; a sell fills at
  // most its quantity against makers whose own notional passed this check), so this bounds them all.
  if (!Number.isSafeInteger(c.price * c.quantity)) fail('overflow', 'numeric overflow: price * quantity exceeds 2^53-1');
  if (c.price > MAX_MARK_PRICE) fail('overflow', `numeric overflow: a position marked at ${c.price} would exceed 2^53-1 (prices above ${MAX_MARK_PRICE} are refused)`);

  const fills = match(state, c);
  let filled = 0;
  for (const f of fills) filled += f.quantity;
  return {
    type: 'OrderSubmitted',
    data: {
      order: { id: c.order_id, trader_id: c.trader_id, market: c.market, side: c.side, price: c.price, quantity: c.quantity },
      fills,
      remaining: c.quantity - filled,
    },
  };
}

/** Price-time priority against the opposite side; every execution at the maker's price. Reads only. */
function match(state: ExchangeState, c: CommandOf<'SubmitOrder'>): FillFact[] {
  const book = state.books.book(c.market);
  if (book === undefined) return [];
  const opposite = book.sideOf(c.side === 'BUY' ? 'SELL' : 'BUY');
  const best = opposite.bestLevel;
  // Most orders do not cross: answer those without allocating the matching state.
  if (best === null || (c.side === 'BUY' ? best.price > c.price : best.price < c.price)) return [];
  const fills: FillFact[] = [];
  const trial = new Map<string, PositionValues>();
  const takerSign = c.side === 'BUY' ? 1 : -1;
  let left = c.quantity;
  let level: typeof best | null = best;
  while (left > 0 && level !== null && (c.side === 'BUY' ? level.price <= c.price : level.price >= c.price)) {
    for (let maker: RestingOrder | null = level.head; maker !== null && left > 0; maker = maker.next) {
      const quantity = Math.min(left, maker.remaining);
      // Refuse the whole order, before anything changes, if any position it touches would overflow.
      tryTrade(state, trial, c.trader_id, c.market, takerSign * quantity, level.price);
      tryTrade(state, trial, maker.trader_id, c.market, -takerSign * quantity, level.price);
      fills.push({ fill_id: fillId(c.fill_id_seed, fills.length), maker_order_id: maker.id, maker_trader_id: maker.trader_id, price: level.price, quantity, maker_remaining: maker.remaining - quantity });
      left -= quantity;
    }
    level = opposite.levelAfter(level);
  }
  return fills;
}

function tryTrade(state: ExchangeState, trial: Map<string, PositionValues>, traderId: string, market: string, signedQty: number, price: number): void {
  const before = trial.get(traderId) ?? state.positions.values(traderId, market);
  trial.set(traderId, applyTrade(before, signedQty, price));
}

function ownOpenOrder(state: ExchangeState, traderId: string, orderId: string): RestingOrder {
  const order = state.books.order(orderId);
  if (order === undefined) fail('order_not_found', `order ${orderId} not found`);
  if (order.trader_id !== traderId) fail('order_not_owned', `order ${orderId} belongs to another trader`);
  return order;
}

export function decideAmendOrder(state: ExchangeState, c: CommandOf<'AmendOrder'>): EventBody {
  if (!isPositiveInteger(c.remaining)) fail('invalid_remaining');
  const order = ownOpenOrder(state, c.trader_id, c.order_id);
  if (c.remaining > order.remaining) throw new DomainError('invalid_amend', `amend can only reduce remaining: ${c.remaining} > current ${order.remaining}`);
  return {
    type: 'OrderAmended',
    data: { order_id: order.id, trader_id: order.trader_id, market: order.market, side: order.side, price: order.price, previous_remaining: order.remaining, remaining: c.remaining },
  };
}

export function decideCancelOrder(state: ExchangeState, c: CommandOf<'CancelOrder'>): EventBody {
  const order = ownOpenOrder(state, c.trader_id, c.order_id);
  return { type: 'OrderCanceled', data: { order_id: order.id, trader_id: order.trader_id, market: order.market, side: order.side, price: order.price, remaining: order.remaining } };
}
