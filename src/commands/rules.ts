// Value rules shared by the decide functions. Numbers must be integers in 1..2^53-1: JavaScript's
// exact range, so no price or quantity is ever silently rounded.
import { DEFAULT_POSITION_LIMIT } from '../projections/market-rules.ts';

/** The position limit of a market that sets none. */
export const POSITION_LIMIT = DEFAULT_POSITION_LIMIT;
/**
 * The highest price a position can be marked at without leaving the exact range: a full-limit position
 * (1000) times the price must stay within 2^53-1. Orders and reference prices above it are refused, since
 * they would set marks that the leaderboard could only show rounded.
 */
export const MAX_MARK_PRICE = Math.floor(Number.MAX_SAFE_INTEGER / POSITION_LIMIT);

/** MAX_MARK_PRICE for a market whose position limit is `limit`: lower for a limit above 1000, never higher. */
export function markPriceBound(limit: number): number {
  return limit <= POSITION_LIMIT ? MAX_MARK_PRICE : Math.floor(Number.MAX_SAFE_INTEGER / limit);
}
export const USERNAME_MAX = 64;
export const NAME_MAX = 128;
const ASSET = /^[A-Za-z0-9]{1,32}$/;
const SYMBOL = /^[A-Za-z0-9]{1,32}-[A-Za-z0-9]{1,32}$/;
// C0, DEL and C1 control characters.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

export function isPositiveInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

export function isMarketSymbol(value: unknown): value is string {
  return typeof value === 'string' && SYMBOL.test(value);
}

export function isAssetCode(value: unknown): value is string {
  return typeof value === 'string' && ASSET.test(value);
}

export function hasControlCharacters(value: string): boolean {
  return CONTROL.test(value);
}
