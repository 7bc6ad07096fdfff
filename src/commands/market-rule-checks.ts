// Checking the rules an organizer sets on a market (competition-rules.md): each value in its range, or
// 400 `invalid_market_rule` naming the field, before anything changes. A definition's rules are
// normalized to what the log records (only those that differ from the defaults).
import type { MarketChanges, MarketRules } from '../events/types.ts';
import { DEFAULT_POSITION_LIMIT, recordedRules } from '../projections/market-rules.ts';
import { fail } from './errors.ts';
import { isPositiveInteger, markPriceBound } from './rules.ts';

/** The rules as an operator sends them, on a definition or a patch; values are checked here. */
export interface MarketRulesInput {
  readonly maker_fee_bps?: number | undefined;
  readonly taker_fee_bps?: number | undefined;
  readonly position_limit?: number | undefined;
  readonly max_open_orders?: number | null | undefined;
}

function inRange(value: number, min: number, max: number): boolean {
  return Number.isSafeInteger(value) && value >= min && value <= max;
}

function checkMakerFee(value: number): number {
  if (!inRange(value, -100, 100)) fail('invalid_market_rule', 'maker_fee_bps must be an integer from -100 to 100');
  return value;
}

function checkTakerFee(value: number): number {
  if (!inRange(value, 0, 100)) fail('invalid_market_rule', 'taker_fee_bps must be an integer from 0 to 100');
  return value;
}

function checkPositionLimit(value: number): number {
  if (!isPositiveInteger(value)) fail('invalid_market_rule', 'position_limit must be an integer from 1 to 9007199254740991');
  return value;
}

function checkMaxOpenOrders(value: number | null): number | null {
  if (value !== null && !isPositiveInteger(value)) fail('invalid_market_rule', 'max_open_orders must be null or an integer from 1 to 9007199254740991');
  return value;
}

/**
 * A reference price the market's position limit lets mark a full position exactly (rules.ts,
 * markPriceBound): a limit above 1000 lowers the highest price allowed. `changed` names the rule
 * that moved the bound, if one did, so the refusal names the field the caller sent.
 */
export function checkMarkBound(referencePrice: number | null, limit: number, changed: 'position_limit' | 'reference_price'): void {
  if (referencePrice === null) return;
  const bound = markPriceBound(limit);
  if (referencePrice <= bound) return;
  if (changed === 'position_limit') fail('invalid_market_rule', `position_limit ${limit} would let a full position marked at the reference_price ${referencePrice} pass 2^53-1 (at most ${Math.floor(Number.MAX_SAFE_INTEGER / referencePrice)} with that price)`);
  fail('invalid_reference_price', `reference_price must be at most ${bound}, or marking a full position would overflow`);
}

/** A definition's rules, checked, as the log records them (defaults left out). */
export function checkedRules(input: MarketRulesInput): MarketRules {
  return recordedRules({
    maker_fee_bps: input.maker_fee_bps === undefined ? 0 : checkMakerFee(input.maker_fee_bps),
    taker_fee_bps: input.taker_fee_bps === undefined ? 0 : checkTakerFee(input.taker_fee_bps),
    position_limit: input.position_limit === undefined ? DEFAULT_POSITION_LIMIT : checkPositionLimit(input.position_limit),
    max_open_orders: input.max_open_orders === undefined ? null : checkMaxOpenOrders(input.max_open_orders),
  });
}

/** A patch's rule changes, checked: each one sent, with its new value (max_open_orders null lifts the cap). */
export function checkedRuleChanges(input: MarketRulesInput): Pick<MarketChanges, 'maker_fee_bps' | 'taker_fee_bps' | 'position_limit' | 'max_open_orders'> {
  const out: { -readonly [K in 'maker_fee_bps' | 'taker_fee_bps' | 'position_limit' | 'max_open_orders']?: MarketChanges[K] } = {};
  if (input.maker_fee_bps !== undefined) out.maker_fee_bps = checkMakerFee(input.maker_fee_bps);
  if (input.taker_fee_bps !== undefined) out.taker_fee_bps = checkTakerFee(input.taker_fee_bps);
  if (input.position_limit !== undefined) out.position_limit = checkPositionLimit(input.position_limit);
  if (input.max_open_orders !== undefined) out.max_open_orders = checkMaxOpenOrders(input.max_open_orders);
  return out;
}
