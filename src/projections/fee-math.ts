// Fee arithmetic, shared by decide (which computes every fill's fees and records them in the event)
// and by the views (which show them), so the two can never disagree.
//
// competition-rules.md: fee = price * quantity * bps / 10000, exact, rounded half away from zero to
// four decimals, in the quote asset. With integer prices, quantities and basis points the exact fee
// never has more than four decimals: ten thousand times it is the integer price * quantity * bps. So
// fees are kept as those integers ("e4": ten-thousandths of the quote asset), added as integers (a sum
// of a million fees is exact, never drifting as a sum of decimals in doubles does), and divided by
// 10,000 only to be shown. The rounding the rule names never has anything to round (test/core/fees.spec.ts
// holds feeE4 to the rule computed in bigints, rounding included, up to the largest notionals).
//
// A fee, or a position's sum of fees, is kept below 10^15 ten-thousandths (10^11 in the quote asset):
// then the integer is exact in a double and its quotient by 10,000 has at most 15 significant digits,
// which a double holds and JSON prints back digit for digit. Past that, decide refuses the order with
// `overflow` before anything changes, as it refuses a price * quantity past 2^53-1 (decisions.md: never
// a silently rounded number).

import { MAX_FEE_E4 } from '../events/types.ts';

/** Ten-thousandths of the quote asset in one unit: fees are kept as integers of this scale. */
export const FEE_SCALE = 10_000;

export { MAX_FEE_E4 };

/**
 * The fee of `quantity` at `price` at `bps` basis points, in ten-thousandths of the quote asset (negative:
 * a rebate); NaN when it is not below 10^15 in magnitude (price * quantity * bps past what is kept exact).
 */
export function feeE4(price: number, quantity: number, bps: number): number {
  if (bps === 0) return 0;
  const fee = price * quantity * bps;
  return fee <= MAX_FEE_E4 && fee >= -MAX_FEE_E4 ? fee : Number.NaN;
}

/** A fee (or a sum of fees) in ten-thousandths, as the number clients see: exact to four decimals. */
export function feeValue(e4: number): number {
  return e4 === 0 ? 0 : e4 / FEE_SCALE;
}

/**
 * `value` less fees of `e4` ten-thousandths: realized PnL after fees. Exact (one rounding, of an exact
 * integer quotient) when `value` has at most four decimals and both fit the exact range, as realized PnL
 * does while positions open and close at whole prices; otherwise the nearest double of the difference.
 */
export function afterFees(value: number, e4: number): number {
  if (e4 === 0) return value;
  const scaled = value * FEE_SCALE;
  if (Number.isSafeInteger(scaled)) {
    const net = scaled - e4;
    if (Number.isSafeInteger(net)) return net / FEE_SCALE;
  }
  return value - e4 / FEE_SCALE;
}
