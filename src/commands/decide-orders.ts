// Deciding trader commands: submission with its admission checks in the specification's order and the
// matching it records (order types, time in force, self-trade prevention), amend, cancel, cancel-all.
import type { EventBody, FillFact, SelfTradeCancelFact, OrderStatus } from '../events/types.ts';
import type { ExchangeState } from '../projections/exchange-state.ts';
import type { BookSide } from '../projections/order-book.ts';
import { NONE } from '../projections/orders/order-store.ts';
import { feeE4 } from '../projections/fee-math.ts';
import { applyTrade, type PositionValues } from '../projections/position-math.ts';
import type { MarketView } from '../projections/views.ts';
import { Refusal, refuse, positionLimitText, tooManyOpenOrdersText } from './errors.ts';
import { DuplicateSubmission } from './duplicate-submission.ts';
import { fillId } from './fill-ids.ts';
import { isMarketSymbol, isPositiveInteger, markPriceBound } from './rules.ts';
import type { CommandOf, OrderRef } from './types.ts';

type Submit = CommandOf<'SubmitOrder'>;

/**
 * A client_order_id already used by this trader since the last reset: the same parameters make the
 * submission a repeat (answered with the first order, nothing appended); other parameters are refused.
 * Checked before anything else, so a retry is recognized whatever changed since (trading stopped, say).
 * The books hold the open and recently finished orders; an older one comes with the command, found in
 * the history at admission (earlier_order).
 */
function checkClientOrderId(state: ExchangeState, c: Submit): Refusal | null {
  if (c.client_order_id === null) return null;
  const first = state.books.byClientId(c.trader_id, c.client_order_id) ?? c.earlier_order;
  if (first === undefined) return null;
  if (first.trader_id !== c.trader_id || first.terms.client_order_id !== c.client_order_id) throw new Error(`decide: the earlier order ${first.id} is not ${c.trader_id}'s ${c.client_order_id}`);
  const t = first.terms;
  const samePrice = c.order_type === 'MARKET' ? c.price === null : c.price === first.price;
  if (
    first.market === c.market &&
    first.side === c.side &&
    t.type === c.order_type &&
    samePrice &&
    first.quantity === c.quantity &&
    t.time_in_force === c.time_in_force &&
    t.self_trade_prevention === c.self_trade_prevention
  ) {
    throw new DuplicateSubmission(first.id, first);
  }
  return refuse('duplicate_client_order_id');
}

export function decideSubmitOrder(state: ExchangeState, c: Submit): EventBody | Refusal {
  const duplicate = checkClientOrderId(state, c);
  if (duplicate !== null) return duplicate;
  // 1. Global trading control.
  if (!state.markets.controls.trading_enabled) return refuse('trading_disabled');
  // 2. The market (a configured market's id is always a valid symbol, so the pattern is only tried on a miss).
  const m = state.marketNames.indexOf(c.market);
  const market = state.markets.at(m);
  if (market === undefined) {
    if (!isMarketSymbol(c.market)) return refuse('invalid_market');
    return refuse('market_not_configured', `market ${c.market} is not configured`);
  }
  if (market.status === 'disabled') return refuse('market_disabled', `market ${c.market} is disabled`);
  if (market.status === 'settled') return refuse('market_settled', `market ${c.market} is settled`);
  // 3. Price (and what the order type allows).
  const isMarket = c.order_type === 'MARKET';
  if (isMarket) {
    if (c.price !== null) return refuse('invalid_price', 'price is not allowed on a market order');
    if (c.time_in_force !== 'IOC') return refuse('invalid_time_in_force', 'market orders take time_in_force IOC');
  } else {
    if (c.price === null) return refuse('invalid_price', 'price is required');
    if (!isPositiveInteger(c.price)) return refuse('invalid_price');
    if (c.price % market.tick_size !== 0) return refuse('tick_size_violation', `price ${c.price} is not a multiple of the tick size ${market.tick_size}`);
  }
  // 4. Quantity.
  if (!isPositiveInteger(c.quantity)) return refuse('invalid_quantity');
  if (c.quantity < market.min_order_quantity) return refuse('quantity_below_minimum', `quantity ${c.quantity} is below the minimum order quantity ${market.min_order_quantity}`);
  // 5. Worst case: every resting order of this side and the new one fill, on top of the position. The
  // full quantity counts, whatever the order type (an IOC or market order could fill all of it). The
  // bound is the market's own (competition-rules.md; 1000 unless set).
  const trader = state.traderNames.indexOf(c.trader_id);
  const resting = state.books.restingAt(trader, m, c.side === 'BUY' ? 0 : 1);
  const net = state.positions.netAt(trader, m);
  const projected = c.side === 'BUY' ? net + resting + c.quantity : net - resting - c.quantity;
  const limit = market.position_limit;
  if (Math.abs(projected) > limit) return refuse('position_limit_exceeded', positionLimitText(c.market, projected, limit));
  if (c.price !== null) {
    // Every fill of this order is at most its notional (a buy pays at most its limit; a sell fills at
    // most its quantity against makers whose own notional passed this check), so this bounds them all.
    if (!Number.isSafeInteger(c.price * c.quantity)) return refuse('overflow', 'numeric overflow: price * quantity exceeds 2^53-1');
    const bound = markPriceBound(limit);
    if (c.price > bound) return refuse('overflow', `numeric overflow: a position marked at ${c.price} would exceed 2^53-1 (prices above ${bound} are refused)`);
  }

  const opposite = state.books.bookAt(m)?.sideOf(c.side === 'BUY' ? 'SELL' : 'BUY');
  const best = opposite?.bestPrice ?? null;
  const crosses = best !== null && (c.price === null || (c.side === 'BUY' ? best <= c.price : best >= c.price));
  // Post-only is judged first, against every resting order (the trader's own included).
  if (c.time_in_force === 'POST_ONLY' && crosses) return refuse('post_only_would_take');
  if (isMarket && best === null) return refuse('no_liquidity');

  const outcome = crosses && opposite !== undefined ? match(state, c, opposite, trader, m, market) : NO_MATCH;
  let filled = 0;
  for (const f of outcome.fills) filled += f.quantity;
  const left = c.quantity - filled;
  const rests = left > 0 && !outcome.takerCanceled && (c.time_in_force === 'GTC' || c.time_in_force === 'POST_ONLY') && !isMarket;
  // 6. The market's cap on resting orders: only an order that would rest counts, against the trader's
  // open orders as this one leaves them (its own resting orders it filled or canceled are gone).
  if (rests && market.max_open_orders !== null && openAfter(state, c, outcome, trader, m) > market.max_open_orders) {
    return refuse('too_many_open_orders', tooManyOpenOrdersText(market.max_open_orders, c.market));
  }
  let status: OrderStatus;
  // A FOK order that could not fill in full (or crossed nothing at all) expires.
  if (outcome.expired || (c.time_in_force === 'FOK' && left > 0)) status = 'expired';
  else if (left === 0) status = 'filled';
  else status = rests ? 'open' : 'canceled';
  return {
    type: 'OrderSubmitted',
    data: {
      order: {
        id: c.order_id,
        trader_id: c.trader_id,
        market: c.market,
        side: c.side,
        price: c.price,
        quantity: c.quantity,
        type: c.order_type,
        time_in_force: c.time_in_force,
        self_trade_prevention: c.self_trade_prevention,
        client_order_id: c.client_order_id,
      },
      fills: outcome.fills,
      self_trade_canceled: outcome.selfCanceled,
      remaining: rests ? left : 0,
      status,
    },
  };
}

interface MatchOutcome {
  readonly fills: FillFact[];
  readonly selfCanceled: SelfTradeCancelFact[];
  /** Self-trade prevention canceled the rest of the incoming order (CANCEL_TAKER, CANCEL_BOTH). */
  readonly takerCanceled: boolean;
  /** A FOK order that could not fill in full: nothing happened. */
  readonly expired: boolean;
}

const NO_CANCELS: SelfTradeCancelFact[] = [];
const NO_MATCH: MatchOutcome = Object.freeze({ fills: [], selfCanceled: NO_CANCELS, takerCanceled: false, expired: false });

/** The trader's open orders in the market once the order rests: its own makers that left the book are not. */
function openAfter(state: ExchangeState, c: Submit, outcome: MatchOutcome, trader: number, m: number): number {
  let open = state.books.openCountAt(trader, m) + 1 - outcome.selfCanceled.length;
  for (const f of outcome.fills) if (f.maker_remaining === 0 && f.maker_trader_id === c.trader_id) open--;
  return open;
}

function withinLimit(c: Submit, price: number): boolean {
  return c.price === null || (c.side === 'BUY' ? price <= c.price : price >= c.price);
}

/**
 * The quantity a FOK order could trade at once: self-trade prevention stops it at the trader's first own
 * order (CANCEL_TAKER, CANCEL_BOTH) or skips own orders (CANCEL_MAKER, which would cancel them).
 */
function fillable(state: ExchangeState, c: Submit, opposite: BookSide, self: number): number {
  const { orders, levels } = state.books;
  let total = 0;
  for (let level = opposite.best; level !== NONE && withinLimit(c, levels.price(level)); level = levels.worse(level)) {
    for (let maker = levels.head(level); maker !== NONE; maker = orders.next(maker)) {
      if (orders.trader(maker) === self && c.self_trade_prevention !== 'NONE') {
        if (c.self_trade_prevention === 'CANCEL_MAKER') continue;
        return total;
      }
      total += orders.remaining(maker);
      if (total >= c.quantity) return total;
    }
  }
  return total;
}

/**
 * Price-time priority against the opposite side; every execution at the maker's price. Reads only.
 * `self` and `m` are the taker and the market as decide interned them (-1 for a trader never seen). In a
 * market with fees each fill records both sides' (fee-math.ts); one without records none, as before.
 */
function match(state: ExchangeState, c: Submit, opposite: BookSide, self: number, m: number, market: MarketView): MatchOutcome {
  if (c.time_in_force === 'FOK' && fillable(state, c, opposite, self) < c.quantity) return { fills: [], selfCanceled: [], takerCanceled: false, expired: true };
  const fills: FillFact[] = [];
  // Self-trade prevention cancels nothing in most submissions: the array is made on the first one.
  let selfCanceled: SelfTradeCancelFact[] = NO_CANCELS;
  const { orders, levels } = state.books;
  // Each trader's position as this order's fills so far leave it, by interned trader (made on the first fill).
  let trial: Map<number, PositionValues> | null = null;
  const takerSign = c.side === 'BUY' ? 1 : -1;
  const stp = c.self_trade_prevention;
  const makerBps = market.maker_fee_bps;
  const takerBps = market.taker_fee_bps;
  const fees = makerBps !== 0 || takerBps !== 0;
  let left = c.quantity;
  for (let level = opposite.best; left > 0 && level !== NONE; level = levels.worse(level)) {
    const price = levels.price(level);
    if (!withinLimit(c, price)) break;
    for (let maker = levels.head(level); maker !== NONE && left > 0; maker = orders.next(maker)) {
      const remaining = orders.remaining(maker);
      if (stp !== 'NONE' && orders.trader(maker) === self) {
        if (stp === 'CANCEL_MAKER' || stp === 'CANCEL_BOTH') {
          if (selfCanceled === NO_CANCELS) selfCanceled = [];
          selfCanceled.push({ order_id: orders.id(maker), side: orders.side(maker), price, remaining, after_fills: fills.length });
        }
        if (stp === 'CANCEL_MAKER') continue;
        return { fills, selfCanceled, takerCanceled: true, expired: false };
      }
      const quantity = Math.min(left, remaining);
      // Refuse the whole order, before anything changes, if any position it touches would overflow (its
      // fees included: a fee past what is kept exact is NaN here, which the trial refuses).
      trial ??= new Map();
      const makerFee = fees ? feeE4(price, quantity, makerBps) : 0;
      const takerFee = fees ? feeE4(price, quantity, takerBps) : 0;
      tryTrade(state, trial, self, m, takerSign * quantity, price, takerFee);
      tryTrade(state, trial, orders.trader(maker), m, -takerSign * quantity, price, makerFee);
      const fill_id = fillId(c.fill_id_seed, fills.length);
      const maker_order_id = orders.id(maker);
      const maker_trader_id = orders.traderId(maker);
      fills.push(
        fees
          ? { fill_id, maker_order_id, maker_trader_id, price, quantity, maker_remaining: remaining - quantity, maker_fee_e4: makerFee, taker_fee_e4: takerFee }
          : { fill_id, maker_order_id, maker_trader_id, price, quantity, maker_remaining: remaining - quantity },
      );
      left -= quantity;
    }
  }
  return { fills, selfCanceled, takerCanceled: false, expired: false };
}

function tryTrade(state: ExchangeState, trial: Map<number, PositionValues>, trader: number, market: number, signedQty: number, price: number, fee: number): void {
  const before = trial.get(trader) ?? state.positions.valuesAt(trader, market);
  trial.set(trader, applyTrade(before, signedQty, price, fee));
}

/**
 * The caller's open order named by id or by client order id (its slot). By id, another trader's order
 * is 403; a client order id is looked up among the caller's own orders only, so none found is always 404.
 */
function ownOpenOrder(state: ExchangeState, traderId: string, ref: OrderRef): number | Refusal {
  const orders = state.books.orders;
  if (ref.client_order_id !== undefined) {
    const slot = state.books.clientSlot(traderId, ref.client_order_id);
    if (slot === NONE || !orders.isOpen(slot)) return refuse('order_not_found', `no open order with client_order_id ${ref.client_order_id}`);
    return slot;
  }
  const slot = orders.restingSlot(ref.order_id);
  if (slot === NONE) return refuse('order_not_found', `order ${ref.order_id} not found`);
  if (orders.traderId(slot) !== traderId) return refuse('order_not_owned', `order ${ref.order_id} belongs to another trader`);
  return slot;
}

export function decideAmendOrder(state: ExchangeState, c: CommandOf<'AmendOrder'>): EventBody | Refusal {
  if (!isPositiveInteger(c.remaining)) return refuse('invalid_remaining');
  const slot = ownOpenOrder(state, c.trader_id, c);
  if (typeof slot !== 'number') return slot;
  const o = state.books.orders;
  const remaining = o.remaining(slot);
  if (c.remaining > remaining) return refuse('invalid_amend', `amend can only reduce remaining: ${c.remaining} > current ${remaining}`);
  return {
    type: 'OrderAmended',
    data: { order_id: o.id(slot), trader_id: o.traderId(slot), market: o.marketId(slot), side: o.side(slot), price: o.price(slot), previous_remaining: remaining, remaining: c.remaining },
  };
}

export function decideCancelOrder(state: ExchangeState, c: CommandOf<'CancelOrder'>): EventBody | Refusal {
  const slot = ownOpenOrder(state, c.trader_id, c);
  if (typeof slot !== 'number') return slot;
  const o = state.books.orders;
  return { type: 'OrderCanceled', data: { order_id: o.id(slot), trader_id: o.traderId(slot), market: o.marketId(slot), side: o.side(slot), price: o.price(slot), remaining: o.remaining(slot) } };
}

/** Every open order of the trader (in one market, or all), oldest first; one event however many. */
export function decideCancelAll(state: ExchangeState, c: CommandOf<'CancelAllOrders'>): EventBody | Refusal {
  if (c.market !== null && !isMarketSymbol(c.market)) return refuse('invalid_market');
  const orders = [];
  for (const o of state.books.openOrderRecords(c.trader_id, c.market ?? undefined)) {
    orders.push({ order_id: o.id, trader_id: o.trader_id, market: o.market, side: o.side, price: o.price, remaining: o.remaining });
  }
  if (orders.length === 0 && c.only_if_open === true) return refuse('order_not_found', 'no open orders to cancel');
  return { type: 'OrdersCanceled', data: { trader_id: c.trader_id, market: c.market, reason: c.reason, orders } };
}
