// Position arithmetic, shared by decide (to refuse a fill that would overflow) and by the positions
// projection (to apply it), so the two can never disagree.
//
// A position keeps its cost basis (the signed notional of the open quantity) rather than its average
// price: the average is cost / net, and while a position only grows the basis stays an exact integer.
// Realized PnL uses the average cost method: closing q of n units realizes q * (price - average).
import { DomainError } from '../commands/errors.ts';

export interface PositionValues {
  readonly net: number;
  readonly cost: number;
  readonly realized: number;
}

export const FLAT: PositionValues = Object.freeze({ net: 0, cost: 0, realized: 0 });

const MAX = Number.MAX_SAFE_INTEGER;

function safe(value: number): number {
  if (!(Math.abs(value) <= MAX)) throw new DomainError('overflow', 'numeric overflow in position or PnL calculation');
  return value;
}

/** The position after trading `signedQty` (positive buys) at `price`. Throws `overflow` past 2^53-1. */
export function applyTrade(p: PositionValues, signedQty: number, price: number): PositionValues {
  const notional = safe(signedQty * price);
  if (p.net === 0 || Math.sign(p.net) === Math.sign(signedQty)) {
    return { net: safe(p.net + signedQty), cost: safe(p.cost + notional), realized: p.realized };
  }
  const absNet = Math.abs(p.net);
  const closing = Math.min(Math.abs(signedQty), absNet);
  const closedCost = closing === absNet ? p.cost : (p.cost / absNet) * closing;
  const realized = safe(p.realized + Math.sign(p.net) * safe(closing * price) - closedCost);
  const left = absNet - closing;
  if (left > 0) return { net: Math.sign(p.net) * left, cost: p.cost - closedCost, realized };
  const opening = Math.abs(signedQty) - closing;
  if (opening === 0) return { net: 0, cost: 0, realized };
  const sign = Math.sign(signedQty);
  return { net: sign * opening, cost: safe(sign * opening * price), realized };
}

/** Realizes the whole position at `price` and flattens it. */
export function settle(p: PositionValues, price: number): PositionValues {
  if (p.net === 0) return p.cost === 0 ? p : { net: 0, cost: 0, realized: p.realized };
  return { net: 0, cost: 0, realized: safe(p.realized + safe(p.net * price) - p.cost) };
}

export function averageEntry(p: PositionValues): number | null {
  return p.net === 0 ? null : p.cost / p.net;
}

/** Unrealized PnL marked at `mark`. */
export function unrealized(p: PositionValues, mark: number): number {
  return p.net === 0 ? 0 : p.net * mark - p.cost;
}
