// Deciding market administration: create or replace, patch, settle, delete, and loading a config.
import type { AdminMessageFact, EventBody, MarketChanges, MarketDefinition } from '../events/types.ts';
import type { ExchangeState } from '../projections/exchange-state.ts';
import { settle } from '../projections/position-math.ts';
import { DEFAULT_POSITION_LIMIT } from '../projections/market-rules.ts';
import { fail } from './errors.ts';
import { checkedRuleChanges, checkedRules, checkMarkBound } from './market-rule-checks.ts';
import { hasControlCharacters, isAssetCode, isPositiveInteger, MAX_MARK_PRICE, NAME_MAX } from './rules.ts';
import type { CommandOf, MarketInput } from './types.ts';

function displayName(value: string | null | undefined, fallback: string): string {
  if (value === null || value === undefined) return fallback;
  const trimmed = value.trim();
  if (trimmed.length > NAME_MAX || hasControlCharacters(trimmed)) fail('invalid_market_definition', `display_name must be at most ${NAME_MAX} characters without control characters`);
  return trimmed === '' ? fallback : trimmed;
}

/** Checks a definition's values (400s) and returns it normalized (its rules only where not the defaults). */
export function validateMarket(m: MarketInput): MarketDefinition {
  if (!isAssetCode(m.base_asset) || !isAssetCode(m.quote_asset)) fail('invalid_market_definition', 'base_asset and quote_asset must be 1 to 32 letters or digits');
  if (m.market_id !== `${m.base_asset}-${m.quote_asset}`) fail('invalid_market_definition', `market_id must equal {base_asset}-{quote_asset} (${m.base_asset}-${m.quote_asset})`);
  if (!isPositiveInteger(m.tick_size)) fail('invalid_tick_size');
  if (!isPositiveInteger(m.min_order_quantity)) fail('invalid_min_order_quantity');
  if (m.reference_price !== null && !isPositiveInteger(m.reference_price)) fail('invalid_reference_price');
  if (m.reference_price !== null && m.reference_price > MAX_MARK_PRICE) fail('invalid_reference_price', `reference_price must be at most ${MAX_MARK_PRICE}, or marking a full position would overflow`);
  const rules = checkedRules(m);
  checkMarkBound(m.reference_price, rules.position_limit ?? DEFAULT_POSITION_LIMIT, 'position_limit');
  return {
    market_id: m.market_id,
    display_name: displayName(m.display_name, m.market_id),
    base_asset: m.base_asset,
    quote_asset: m.quote_asset,
    tick_size: m.tick_size,
    min_order_quantity: m.min_order_quantity,
    reference_price: m.reference_price,
    enabled: m.enabled,
    ...rules,
  };
}

function notSettled(state: ExchangeState, marketId: string): void {
  if (state.markets.get(marketId)?.status === 'settled') fail('market_settled', `market ${marketId} is settled; delete it and create a fresh one`);
}

export function decideUpsertMarket(state: ExchangeState, c: CommandOf<'UpsertMarket'>): EventBody {
  const market = validateMarket(c.market);
  notSettled(state, market.market_id);
  return { type: 'MarketUpserted', data: { market } };
}

export function decideLoadConfig(state: ExchangeState, c: CommandOf<'LoadConfig'>): EventBody {
  const markets = c.markets.map(validateMarket);
  const seen = new Set<string>();
  for (const m of markets) {
    if (seen.has(m.market_id)) fail('invalid_market_definition', `market ${m.market_id} appears twice in the config`);
    seen.add(m.market_id);
  }
  for (const m of markets) notSettled(state, m.market_id);
  return { type: 'ConfigLoaded', data: { trading_enabled: c.trading_enabled ?? null, markets } };
}

export function decidePatchMarket(state: ExchangeState, c: CommandOf<'PatchMarket'>): EventBody {
  const p = c.changes;
  const changes: { -readonly [K in keyof MarketChanges]: MarketChanges[K] } = {};
  if (p.display_name !== undefined) changes.display_name = displayName(p.display_name, c.market_id);
  if (p.tick_size !== undefined) {
    if (!isPositiveInteger(p.tick_size)) fail('invalid_tick_size');
    changes.tick_size = p.tick_size;
  }
  if (p.min_order_quantity !== undefined) {
    if (!isPositiveInteger(p.min_order_quantity)) fail('invalid_min_order_quantity');
    changes.min_order_quantity = p.min_order_quantity;
  }
  if (p.reference_price !== undefined) {
    if (!isPositiveInteger(p.reference_price)) fail('invalid_reference_price', 'reference_price must be an integer greater than 0');
    if (p.reference_price > MAX_MARK_PRICE) fail('invalid_reference_price', `reference_price must be at most ${MAX_MARK_PRICE}, or marking a full position would overflow`);
    changes.reference_price = p.reference_price;
  }
  if (p.enabled !== undefined) changes.enabled = p.enabled;
  Object.assign(changes, checkedRuleChanges(p));
  const market = state.markets.get(c.market_id);
  if (market === undefined) fail('market_not_configured', `market ${c.market_id} is not configured`);
  notSettled(state, c.market_id);
  // The reference price and the position limit after the patch bound each other (rules.ts, markPriceBound).
  checkMarkBound(changes.reference_price ?? market.reference_price, changes.position_limit ?? market.position_limit, changes.position_limit === undefined ? 'reference_price' : 'position_limit');
  return { type: 'MarketPatched', data: { market_id: c.market_id, changes } };
}

export function decideSettleMarket(state: ExchangeState, c: CommandOf<'SettleMarket'>): EventBody {
  if (!isPositiveInteger(c.settlement_price)) fail('invalid_settlement_price');
  const market = state.markets.get(c.market_id);
  if (market === undefined) fail('market_not_configured', `market ${c.market_id} is not configured`);
  notSettled(state, c.market_id);

  const affected = new Set<string>();
  const book = state.books.book(c.market_id);
  if (book !== undefined) for (const side of [book.bids, book.asks]) for (const slot of side.orderSlots()) affected.add(state.books.orders.traderId(slot));
  let openInterest = 0;
  for (const traderId of state.positions.holdersOf(c.market_id)) {
    const values = state.positions.values(traderId, c.market_id);
    if (values.net === 0) continue;
    settle(values, c.settlement_price); // throws `overflow` before anything changes
    affected.add(traderId);
    if (values.net > 0) openInterest += values.net;
  }
  const announcement: AdminMessageFact = {
    message_id: c.message_id,
    target_username: null,
    target_trader_id: null,
    market: c.market_id,
    level: 'info',
    title: `${market.display_name} settled`,
    // A blank announcement would broadcast an empty message: the default text stands in for it.
    body: c.announcement?.trim() || `Market ${c.market_id} settled at ${c.settlement_price}`,
  };
  return {
    type: 'MarketSettled',
    data: {
      market_id: c.market_id,
      settlement_price: c.settlement_price,
      canceled_orders: state.books.marketOrderCount(c.market_id),
      affected_traders: affected.size,
      settled_quantity: openInterest,
      announcement,
    },
  };
}

export function decideDeleteMarket(state: ExchangeState, c: CommandOf<'DeleteMarket'>): EventBody {
  if (state.markets.get(c.market_id) === undefined) fail('market_not_configured', `market ${c.market_id} is not configured`);
  if (state.books.marketOrderCount(c.market_id) > 0) fail('market_has_open_orders');
  return { type: 'MarketDeleted', data: { market_id: c.market_id, mark_price: state.leaderboard.markPrice(c.market_id) } };
}
