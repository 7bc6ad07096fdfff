// Position arithmetic, shared by decide (to refuse a fill that would overflow) and by the positions
// projection (to apply it), so the two can never disagree.
//
// A position keeps its cost basis (the signed notional of the open quantity) rather than its average
// price: the average is cost / net, and while a position only grows the basis stays an exact integer.
// Realized PnL uses the average cost method: closing q of n units realizes q * (price - average).
// Fees are kept beside it, in ten-thousandths of the quote asset (fee-math.ts), and taken off only when
// realized PnL is shown, so they add up exactly however many fills there are.
import { DomainError } from '../commands/errors.ts';
import { afterFees, MAX_FEE_E4 } from './fee-math.ts';

export interface PositionValues {
  readonly net: number;
  readonly cost: number;
  /** Realized PnL before fees. */
  readonly realized: number;
  /** Fees paid in the market (negative: rebates received), in ten-thousandths of the quote asset. */
  readonly fees: number;
}

export const FLAT: PositionValues = Object.freeze({ net: 0, cost: 0, realized: 0, fees: 0 });

const MAX = Number.MAX_SAFE_INTEGER;

function safe(value: number): number {
  if (!(Math.abs(value) <= MAX)) throw new DomainError('overflow', 'numeric overflow in position or PnL calculation');
  return value;
}

/** A position's fees after adding `fee`; throws `overflow` past what is kept exact (fee-math.ts). */
function feesAfter(fees: number, fee: number): number {
  if (fee === 0) return fees;
  const sum = fees + fee;
  // NaN (a fee past the bound) fails the comparison too.
  if (!(Math.abs(sum) <= MAX_FEE_E4)) throw new DomainError('overflow', 'numeric overflow: fees beyond 10^11 in the quote asset');
  return sum;
}

/**
 * The position after trading `signedQty` (positive buys) at `price`, paying `fee` (ten-thousandths of the
 * quote asset; negative: a rebate). Throws `overflow` past 2^53-1, or fees past 10^11.
 */
export function applyTrade(p: PositionValues, signedQty: number, price: number, fee = 0): PositionValues {
  const notional = safe(signedQty * price);
  const fees = feesAfter(p.fees, fee);
  if (p.net === 0 || Math.sign(p.net) === Math.sign(signedQty)) {
    return { net: safe(p.net + signedQty), cost: safe(p.cost + notional), realized: p.realized, fees };
  }
  const absNet = Math.abs(p.net);
  const closing = Math.min(Math.abs(signedQty), absNet);
  const closedCost = closing === absNet ? p.cost : (p.cost / absNet) * closing;
  const realized = safe(p.realized + Math.sign(p.net) * safe(closing * price) - closedCost);
  const left = absNet - closing;
  if (left > 0) return { net: Math.sign(p.net) * left, cost: p.cost - closedCost, realized, fees };
  const opening = Math.abs(signedQty) - closing;
  if (opening === 0) return { net: 0, cost: 0, realized, fees };
  const sign = Math.sign(signedQty);
  return { net: sign * opening, cost: safe(sign * opening * price), realized, fees };
}

/** Realizes the whole position at `price` and flattens it (its fees stay). */
export function settle(p: PositionValues, price: number): PositionValues {
  if (p.net === 0) return p.cost === 0 ? p : { net: 0, cost: 0, realized: p.realized, fees: p.fees };
  return { net: 0, cost: 0, realized: safe(p.realized + safe(p.net * price) - p.cost), fees: p.fees };
}

/** Realized PnL after fees: what positions and the leaderboard show. */
export function realizedAfterFees(p: PositionValues): number {
  return afterFees(p.realized, p.fees);
}

export function averageEntry(p: PositionValues): number | null {
  return p.net === 0 ? null : p.cost / p.net;
}

/** Unrealized PnL marked at `mark`. */
export function unrealized(p: PositionValues, mark: number): number {
  return p.net === 0 ? 0 : p.net * mark - p.cost;
}
