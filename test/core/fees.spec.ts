// Fees and rebates (competition-rules.md): fee = price * quantity * bps / 10000, exact, rounded half away
// from zero to four decimals, in the quote asset; every fill records both sides' fees; positions, realized
// PnL and the leaderboard are after fees; a rule changed by a patch applies from the next fill on.
import { expect } from 'chai';
import fc from 'fast-check';
import { fillId } from '../../src/commands/fill-ids.ts';
import { afterFees, feeE4, feeValue, MAX_FEE_E4 } from '../../src/projections/fee-math.ts';
import { positionView } from '../../src/projections/positions.ts';
import { submitReply } from '../../src/projections/order-replies.ts';
import { prng } from '../../replay/prng.ts';
import { given } from './dsl.ts';
import type { EventBody, FillFact } from '../../src/events/types.ts';
import { ALICE, BOB, BTC, marketUpserted, orderRested, SEED, submit, traderProvisioned } from './fixtures.ts';

/** The spec's rule in exact integer arithmetic: price * quantity * bps / 10000 to four decimals, half away from zero, as ten-thousandths. */
function referenceE4(price: bigint, quantity: bigint, bps: bigint): bigint {
  const numerator = price * quantity * bps * 10_000n; // the fee in ten-thousandths, times the divisor
  const divisor = 10_000n;
  const negative = numerator < 0n;
  const magnitude = negative ? -numerator : numerator;
  const rounded = (magnitude * 2n + divisor) / (divisor * 2n);
  return negative ? -rounded : rounded;
}

/** A number of ten-thousandths as its exact decimal text, as JSON should print it. */
function decimal(e4: bigint): string {
  const negative = e4 < 0n;
  const m = negative ? -e4 : e4;
  const whole = m / 10_000n;
  const frac = (m % 10_000n).toString().padStart(4, '0').replace(/0+$/, '');
  const text = frac === '' ? whole.toString() : `${whole}.${frac}`;
  return negative && text !== '0' ? `-${text}` : text;
}

/** A submission that filled (in the current vocabulary: fees are a version-3 member of its fills). */
function filled(id: string, traderId: string, side: 'BUY' | 'SELL', price: number, quantity: number, fills: FillFact[]): EventBody {
  let done = 0;
  for (const f of fills) done += f.quantity;
  return {
    type: 'OrderSubmitted',
    data: {
      order: { id, trader_id: traderId, market: BTC, side, price, quantity, type: 'LIMIT', time_in_force: 'GTC', self_trade_prevention: 'NONE', client_order_id: null },
      fills,
      self_trade_canceled: [],
      remaining: quantity - done,
      status: done === quantity ? 'filled' : 'open',
    },
  };
}

const FEES = [traderProvisioned(ALICE, 'alice'), traderProvisioned(BOB, 'bob'), marketUpserted(BTC, { maker_fee_bps: -2, taker_fee_bps: 5 })];

/** Alice's buy of all of m1 at 1 bp (the taker's fee only): fees of 10^15 - 1 ten-thousandths. */
function filledLargest(largest: number): EventBody {
  return filled('t', ALICE, 'BUY', 1, largest, [{ fill_id: 'f', maker_order_id: 'm1', maker_trader_id: BOB, price: 1, quantity: largest, maker_remaining: 0, maker_fee_e4: 0, taker_fee_e4: largest }]);
}

describe('core: fees', () => {
  describe('recorded on every fill', () => {
    it('a fill in a market with fees records both sides\' fees, in ten-thousandths (a maker rebate negative)', () => {
      const s = given(...FEES, orderRested('m1', BOB, 'SELL', 100, 10));
      s.when(submit(ALICE, 'BUY', 101, 10, 't')).then({
        type: 'OrderSubmitted',
        data: {
          order: { id: 't', trader_id: ALICE, market: BTC, side: 'BUY', price: 101, quantity: 10 },
          // 100 * 10 * -2 bps = -0.2 (a rebate to the maker); 100 * 10 * 5 bps = 0.5 (the taker pays).
          fills: [{ fill_id: fillId(SEED, 0), maker_order_id: 'm1', maker_trader_id: BOB, price: 100, quantity: 10, maker_remaining: 0, maker_fee_e4: -2000, taker_fee_e4: 5000 }],
          remaining: 0,
        },
      });
    });

    it('each side sees its own fee and liquidity: in the reply, the fill history and positions', () => {
      const s = given(...FEES, orderRested('m1', BOB, 'SELL', 100, 10));
      const event = s.exchange.execute({ ...submit(ALICE, 'BUY', 101, 10, 't'), time: '2026-01-01T00:00:30.000000Z' });
      if (event.type !== 'OrderSubmitted') throw new Error(event.type);
      expect(submitReply(s.exchange.state, event).fills[0]).to.deep.include({ fee: 0.5, liquidity: 'taker' });
      expect(s.history.fills.of(ALICE)[0]).to.deep.include({ fee: 0.5, liquidity: 'taker' });
      expect(s.history.fills.of(BOB)[0]).to.deep.include({ fee: -0.2, liquidity: 'maker' });
      const alice = s.exchange.state.positions.viewsOf(ALICE)[0];
      const bob = s.exchange.state.positions.viewsOf(BOB)[0];
      expect(alice).to.deep.include({ net_quantity: 10, fees: 0.5, realized_pnl: -0.5 });
      expect(bob).to.deep.include({ net_quantity: -10, fees: -0.2, realized_pnl: 0.2 });
    });

    it('a trader whose order meets its own sees the fill once, as the taker, paying both sides\' fees', () => {
      const s = given(...FEES, orderRested('own', ALICE, 'SELL', 100, 3));
      s.when(submit(ALICE, 'BUY', 100, 3, 't')).then({
        type: 'OrderSubmitted',
        data: {
          order: { id: 't', trader_id: ALICE, market: BTC, side: 'BUY', price: 100, quantity: 3 },
          fills: [{ fill_id: fillId(SEED, 0), maker_order_id: 'own', maker_trader_id: ALICE, price: 100, quantity: 3, maker_remaining: 0, maker_fee_e4: -600, taker_fee_e4: 1500 }],
          remaining: 0,
        },
      });
      expect(s.history.fills.of(ALICE)).to.have.length(1);
      expect(s.history.fills.of(ALICE)[0]).to.deep.include({ fee: 0.09, liquidity: 'taker' });
      expect(s.exchange.state.positions.viewsOf(ALICE)[0]).to.deep.include({ net_quantity: 0, fees: 0.09, realized_pnl: -0.09 });
    });

    it('a market without fees records none, and its views show fee 0', () => {
      const s = given(traderProvisioned(ALICE, 'alice'), traderProvisioned(BOB, 'bob'), marketUpserted(BTC), orderRested('m1', BOB, 'SELL', 100, 1));
      s.when(submit(ALICE, 'BUY', 100, 1, 't')).then({
        type: 'OrderSubmitted',
        data: { order: { id: 't', trader_id: ALICE, market: BTC, side: 'BUY', price: 100, quantity: 1 }, fills: [{ fill_id: fillId(SEED, 0), maker_order_id: 'm1', maker_trader_id: BOB, price: 100, quantity: 1, maker_remaining: 0 }], remaining: 0 },
      });
      expect(s.history.fills.of(BOB)[0]).to.deep.include({ fee: 0, liquidity: 'maker' });
      expect(s.exchange.state.positions.viewsOf(BOB)[0]).to.deep.include({ fees: 0, realized_pnl: 0 });
    });

    it('a patched rule applies to fills from then on; earlier fills keep their fees', () => {
      const before = filled('t1', ALICE, 'BUY', 100, 1, [{ fill_id: 'f1', maker_order_id: 'm1', maker_trader_id: BOB, price: 100, quantity: 1, maker_remaining: 1, maker_fee_e4: -200, taker_fee_e4: 500 }]);
      const s = given(...FEES, orderRested('m1', BOB, 'SELL', 100, 2), before, { type: 'MarketPatched', data: { market_id: BTC, changes: { taker_fee_bps: 10, maker_fee_bps: 0 } } });
      s.when(submit(ALICE, 'BUY', 100, 1, 't2')).then({
        type: 'OrderSubmitted',
        data: { order: { id: 't2', trader_id: ALICE, market: BTC, side: 'BUY', price: 100, quantity: 1 }, fills: [{ fill_id: fillId(SEED, 0), maker_order_id: 'm1', maker_trader_id: BOB, price: 100, quantity: 1, maker_remaining: 0, maker_fee_e4: 0, taker_fee_e4: 1000 }], remaining: 0 },
      });
      expect(s.history.fills.of(ALICE).map((f) => f.fee)).to.deep.equal([0.05, 0.1]);
      expect(s.history.fills.of(BOB).map((f) => f.fee)).to.deep.equal([-0.02, 0]);
      expect(s.exchange.state.positions.viewsOf(ALICE)[0]?.fees).to.equal(0.15);
    });
  });

  describe('PnL after fees', () => {
    it('realized PnL and the leaderboard are after fees; the marked net PnL of all traders sums to minus the fees', () => {
      // Alice buys 10 at 100 (taker), then sells 10 at 110 into Bob's bid (taker again).
      const s = given(
        ...FEES,
        orderRested('m1', BOB, 'SELL', 100, 10),
        filled('t1', ALICE, 'BUY', 100, 10, [{ fill_id: 'f1', maker_order_id: 'm1', maker_trader_id: BOB, price: 100, quantity: 10, maker_remaining: 0, maker_fee_e4: -2000, taker_fee_e4: 5000 }]),
        orderRested('m2', BOB, 'BUY', 110, 10),
      );
      s.when(submit(ALICE, 'SELL', 110, 10, 't2')).then({
        type: 'OrderSubmitted',
        data: { order: { id: 't2', trader_id: ALICE, market: BTC, side: 'SELL', price: 110, quantity: 10 }, fills: [{ fill_id: fillId(SEED, 0), maker_order_id: 'm2', maker_trader_id: BOB, price: 110, quantity: 10, maker_remaining: 0, maker_fee_e4: -2200, taker_fee_e4: 5500 }], remaining: 0 },
      });
      const state = s.exchange.state;
      // Alice: 10 * (110 - 100) = 100 realized, less 0.5 + 0.55 paid.
      expect(state.positions.viewsOf(ALICE)[0]).to.deep.include({ net_quantity: 0, realized_pnl: 98.95, fees: 1.05 });
      // Bob: sold at 100 and bought back at 110 (-100), plus rebates of 0.2 and 0.22.
      expect(state.positions.viewsOf(BOB)[0]).to.deep.include({ net_quantity: 0, realized_pnl: -99.58, fees: -0.42 });
      const rows = state.leaderboard.at(state.seq);
      expect(rows.map((r) => [r.username, r.net_pnl, r.realized_pnl])).to.deep.equal([
        ['alice', 98.95, 98.95],
        ['bob', -99.58, -99.58],
      ]);
      // What the traders made between them is what they paid the exchange: 1.05 - 0.42.
      expect(rows.reduce((sum, r) => sum + r.net_pnl, 0)).to.be.closeTo(-0.63, 1e-9);
    });
  });

  describe('arithmetic at the edges', () => {
    it('half-way cases are exact: a fee is a whole number of ten-thousandths and prints as its exact decimal', () => {
      // Each of these would be rounded at three decimals (half away from zero); at four there is nothing to round.
      expect(feeValue(feeE4(1, 1, 5))).to.equal(0.0005);
      expect(feeValue(feeE4(1, 1, -5))).to.equal(-0.0005);
      expect(feeValue(feeE4(12_345, 1, 1))).to.equal(1.2345);
      expect(feeValue(feeE4(1, 25, 1))).to.equal(0.0025);
      expect(feeValue(feeE4(1, 1, 1))).to.equal(0.0001);
      expect(feeValue(feeE4(1, 1, -1))).to.equal(-0.0001);
      expect(JSON.stringify([feeValue(5), feeValue(-5), feeValue(12_345), feeValue(-12_345), feeValue(1)])).to.equal('[0.0005,-0.0005,1.2345,-1.2345,0.0001]');
      // The sum of two half-way fees is exact too (0.0005 + 0.0005 as decimals in doubles is not always).
      expect(feeValue(feeE4(1, 1, 5) + feeE4(1, 1, 5))).to.equal(0.001);
      expect(feeE4(100, 7, 0)).to.equal(0);
    });

    it('feeE4 is the rule computed exactly, rounding included, for any price, quantity and basis points; NaN past 10^15', () => {
      const price = fc.oneof(fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }));
      fc.assert(
        fc.property(price, fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), fc.integer({ min: -100, max: 100 }), (p, q, b) => {
          fc.pre(Number.isSafeInteger(p * q) && p * q === Number(BigInt(p) * BigInt(q)));
          const exact = referenceE4(BigInt(p), BigInt(q), BigInt(b));
          const got = feeE4(p, q, b);
          const magnitude = exact < 0n ? -exact : exact;
          if (magnitude > BigInt(MAX_FEE_E4)) expect(got, `${p} x ${q} at ${b} bps`).to.be.NaN;
          else {
            expect(BigInt(got), `${p} x ${q} at ${b} bps`).to.equal(exact);
            expect(JSON.stringify(feeValue(got))).to.equal(decimal(exact));
          }
        }),
        { numRuns: 20_000, seed: 38 },
      );
    });

    it('large notionals near the exact bound: a fee up to 10^11 is exact; past it the order is refused with overflow', () => {
      // price * quantity = 2^53-1 at 1 bp: 900719925474.0991, past the 10^11 a fee may be.
      const huge = [traderProvisioned(ALICE, 'alice'), traderProvisioned(BOB, 'bob'), marketUpserted(BTC, { taker_fee_bps: 1, reference_price: 1, position_limit: Number.MAX_SAFE_INTEGER })];
      given(...huge, orderRested('m1', BOB, 'SELL', 1, Number.MAX_SAFE_INTEGER)).when(submit(ALICE, 'BUY', 1, Number.MAX_SAFE_INTEGER, 't')).thenRejects('overflow', /fees beyond 10\^11/);
      // 10^15 - 1 at 1 bp: 99999999999.9999, the largest fee there is, exact.
      const largest = 999_999_999_999_999;
      const s = given(...huge, orderRested('m1', BOB, 'SELL', 1, largest));
      s.when(submit(ALICE, 'BUY', 1, largest, 't')).then({
        type: 'OrderSubmitted',
        data: { order: { id: 't', trader_id: ALICE, market: BTC, side: 'BUY', price: 1, quantity: largest }, fills: [{ fill_id: fillId(SEED, 0), maker_order_id: 'm1', maker_trader_id: BOB, price: 1, quantity: largest, maker_remaining: 0, maker_fee_e4: 0, taker_fee_e4: largest }], remaining: 0 },
      });
      const view = positionView(s.exchange.state.positions.recordsOf(ALICE)[0] as never);
      expect(JSON.stringify(view.fees)).to.equal('99999999999.9999');
      // One more fee on that position would pass the bound: refused, before anything changes.
      given(...huge, orderRested('m1', BOB, 'SELL', 1, largest), filledLargest(largest), orderRested('m2', BOB, 'SELL', 1, 1))
        .when(submit(ALICE, 'BUY', 1, 1, 't2'))
        .thenRejects('overflow', /fees beyond 10\^11/);
    });

    it('realized PnL after fees is exact where the PnL has at most four decimals', () => {
      expect(afterFees(100, 10_500)).to.equal(98.95);
      expect(afterFees(0, -4200)).to.equal(0.42);
      expect(afterFees(0.1, 1)).to.equal(0.0999);
      expect(afterFees(-3, 5)).to.equal(-3.0005);
      expect(afterFees(7, 0)).to.equal(7);
      // A PnL with more decimals (an average entry of 33.33...) is taken as it is, less the fees.
      expect(afterFees(100 / 3, 1)).to.be.closeTo(100 / 3 - 0.0001, 1e-12);
    });

    it('a million fees add up without drift: their sum in ten-thousandths is the exact sum, and prints as its exact decimal', () => {
      fc.assert(
        fc.property(fc.integer(), (seed) => {
          const next = prng(seed);
          let sum = 0;
          let exact = 0n;
          let asDecimals = 0;
          for (let i = 0; i < 1_000_000; i++) {
            // A fill of 1..1000 at a price of 1..100,000, at -100..100 bps.
            const fee = feeE4(1 + Math.floor(next() * 100_000), 1 + Math.floor(next() * 1000), Math.floor(next() * 201) - 100);
            sum += fee;
            exact += BigInt(fee);
            asDecimals += feeValue(fee);
          }
          expect(BigInt(sum)).to.equal(exact);
          expect(JSON.stringify(feeValue(sum))).to.equal(decimal(exact));
          // What the integers avoid: the same fees added as decimals drift from the exact sum.
          expect(JSON.stringify(asDecimals)).to.not.equal(decimal(exact));
        }),
        { numRuns: 3, seed: 1_000_000 },
      );
    });
  });
});
