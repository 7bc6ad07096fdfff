// The rules an organizer sets per market (competition-rules.md, "Rules per market"): each value in its
// range or 400 invalid_market_rule naming the field; a market without them behaves as before; the
// position limit and the cap on open orders each refused with the spec's text.
import { expect } from 'chai';
import { GTC_LIMIT } from '../../src/commands/order-terms.ts';
import type { MarketInput } from '../../src/commands/types.ts';
import type { MarketRulesInput } from '../../src/commands/market-rule-checks.ts';
import { fillId } from '../../src/commands/fill-ids.ts';
import type { TimeInForce } from '../../src/events/types.ts';
import { given } from './dsl.ts';
import { ALICE, BOB, BTC, ETH, market, marketUpserted, orderRested, SEED, submit, traderProvisioned, WORLD } from './fixtures.ts';

function input(overrides: Partial<MarketInput> = {}): MarketInput {
  return { market_id: BTC, base_asset: 'BTC', quote_asset: 'USD', tick_size: 1, min_order_quantity: 1, reference_price: 100, enabled: true, ...overrides };
}

/** Every value out of range of each rule, and the field the refusal must name. */
const OUT_OF_RANGE: readonly [MarketRulesInput, string][] = [
  [{ maker_fee_bps: -101 }, 'maker_fee_bps'],
  [{ maker_fee_bps: 101 }, 'maker_fee_bps'],
  [{ maker_fee_bps: 0.5 }, 'maker_fee_bps'],
  [{ taker_fee_bps: -1 }, 'taker_fee_bps'],
  [{ taker_fee_bps: 101 }, 'taker_fee_bps'],
  [{ taker_fee_bps: Number.NaN }, 'taker_fee_bps'],
  [{ position_limit: 0 }, 'position_limit'],
  [{ position_limit: -5 }, 'position_limit'],
  [{ position_limit: 1.5 }, 'position_limit'],
  [{ position_limit: 2 ** 53 }, 'position_limit'],
  [{ max_open_orders: 0 }, 'max_open_orders'],
  [{ max_open_orders: 2.5 }, 'max_open_orders'],
  [{ max_open_orders: Number.MAX_VALUE }, 'max_open_orders'],
];

describe('core: market rules', () => {
  describe('set on a definition, a patch, a config load', () => {
    it('a definition records only the rules that differ from the defaults; every view shows all four', () => {
      const s = given();
      s.when({ type: 'UpsertMarket', market: input({ maker_fee_bps: -2, taker_fee_bps: 5, position_limit: 20, max_open_orders: 3 }) }).then({
        type: 'MarketUpserted',
        data: { market: market(BTC, { maker_fee_bps: -2, taker_fee_bps: 5, position_limit: 20, max_open_orders: 3 }) },
      });
      expect(s.exchange.state.markets.get(BTC)).to.deep.include({ maker_fee_bps: -2, taker_fee_bps: 5, position_limit: 20, max_open_orders: 3 });
      // The defaults sent explicitly are the defaults: recorded as a market without rules is.
      const d = given();
      d.when({ type: 'UpsertMarket', market: input({ maker_fee_bps: 0, taker_fee_bps: 0, position_limit: 1000, max_open_orders: null }) }).then({ type: 'MarketUpserted', data: { market: market(BTC) } });
      expect(d.exchange.state.markets.get(BTC)).to.deep.include({ maker_fee_bps: 0, taker_fee_bps: 0, position_limit: 1000, max_open_orders: null });
    });

    it('a definition without rules is recorded as before and shows the defaults', () => {
      const s = given();
      s.when({ type: 'UpsertMarket', market: input() }).then({ type: 'MarketUpserted', data: { market: market(BTC) } });
      expect(s.exchange.state.markets.get(BTC)).to.deep.include({ maker_fee_bps: 0, taker_fee_bps: 0, position_limit: 1000, max_open_orders: null });
    });

    it('replacing a definition replaces its rules too (omitted: the defaults)', () => {
      const s = given(marketUpserted(BTC, { taker_fee_bps: 7, max_open_orders: 2 }));
      s.when({ type: 'UpsertMarket', market: input({ tick_size: 5 }) }).then({ type: 'MarketUpserted', data: { market: market(BTC, { tick_size: 5 }) } });
      expect(s.exchange.state.markets.get(BTC)).to.deep.include({ taker_fee_bps: 0, max_open_orders: null, tick_size: 5 });
    });

    it('refuses each value out of range: 400 invalid_market_rule naming the field, and nothing changes', () => {
      for (const [bad, field] of OUT_OF_RANGE) {
        const err = given().when({ type: 'UpsertMarket', market: input(bad) }).thenRejects('invalid_market_rule', new RegExp(`^${field} must be`));
        expect(err.status).to.equal(400);
        given(marketUpserted(BTC)).when({ type: 'PatchMarket', market_id: BTC, changes: bad }).thenRejects('invalid_market_rule', new RegExp(`^${field} must be`));
        // One bad definition refuses the whole load.
        given().when({ type: 'LoadConfig', markets: [input({ market_id: ETH, base_asset: 'ETH' }), input(bad)] }).thenRejects('invalid_market_rule', new RegExp(`^${field} must be`));
      }
    });

    it('accepts the ends of every range', () => {
      // [sent, recorded]: a default is recorded as no member at all.
      const ends = [
        [{ maker_fee_bps: -100 }, { maker_fee_bps: -100 }],
        [{ maker_fee_bps: 100 }, { maker_fee_bps: 100 }],
        [{ taker_fee_bps: 0 }, {}],
        [{ taker_fee_bps: 100 }, { taker_fee_bps: 100 }],
        [{ position_limit: 1 }, { position_limit: 1 }],
        [{ max_open_orders: 1 }, { max_open_orders: 1 }],
        [{ max_open_orders: Number.MAX_SAFE_INTEGER }, { max_open_orders: Number.MAX_SAFE_INTEGER }],
      ] as const;
      for (const [sent, recorded] of ends) given().when({ type: 'UpsertMarket', market: input(sent) }).then({ type: 'MarketUpserted', data: { market: market(BTC, recorded) } });
    });

    it('a position limit above 1000 lowers the highest price a full position can be marked at', () => {
      // 2^53-1 / 10^9 = 9,007,199: a reference price above it could mark a full position past 2^53-1.
      given().when({ type: 'UpsertMarket', market: input({ position_limit: 1e9, reference_price: 9_007_200 }) }).thenRejects('invalid_market_rule', /^position_limit 1000000000 would let a full position marked at the reference_price 9007200/);
      given().when({ type: 'UpsertMarket', market: input({ position_limit: 1e9, reference_price: 9_007_199 }) }).then({ type: 'MarketUpserted', data: { market: market(BTC, { position_limit: 1e9, reference_price: 9_007_199 }) } });
      given(marketUpserted(BTC, { reference_price: 9_007_200 })).when({ type: 'PatchMarket', market_id: BTC, changes: { position_limit: 1e9 } }).thenRejects('invalid_market_rule', /^position_limit/);
      given(marketUpserted(BTC, { position_limit: 1e9, reference_price: 1 })).when({ type: 'PatchMarket', market_id: BTC, changes: { reference_price: 9_007_200 } }).thenRejects('invalid_reference_price', /at most 9007199/);
      // An order above the market's bound is refused as overflow, before it could set such a mark.
      given(...WORLD.slice(1), marketUpserted(BTC, { position_limit: 1e9, reference_price: 1 }))
        .when(submit(ALICE, 'BUY', 9_007_200, 1))
        .thenRejects('overflow', /prices above 9007199 are refused/);
    });

    it('a patch records each rule it changes, one event; max_open_orders null lifts the cap', () => {
      const s = given(marketUpserted(BTC, { max_open_orders: 2 }));
      s.when({ type: 'PatchMarket', market_id: BTC, changes: { maker_fee_bps: -1, taker_fee_bps: 3 } }).then({ type: 'MarketPatched', data: { market_id: BTC, changes: { maker_fee_bps: -1, taker_fee_bps: 3 } } });
      expect(s.exchange.state.markets.get(BTC)).to.deep.include({ maker_fee_bps: -1, taker_fee_bps: 3, position_limit: 1000, max_open_orders: 2 });
      const lifted = given(marketUpserted(BTC, { max_open_orders: 2, maker_fee_bps: -1 }));
      lifted.when({ type: 'PatchMarket', market_id: BTC, changes: { max_open_orders: null, position_limit: 50 } }).then({ type: 'MarketPatched', data: { market_id: BTC, changes: { position_limit: 50, max_open_orders: null } } });
      expect(lifted.exchange.state.markets.get(BTC)).to.deep.include({ position_limit: 50, max_open_orders: null, maker_fee_bps: -1 });
    });

    it('a config load sets each market\'s rules in its one event', () => {
      const s = given();
      s.when({ type: 'LoadConfig', markets: [input({ taker_fee_bps: 2 }), input({ market_id: ETH, base_asset: 'ETH', position_limit: 250 })] }).then({
        type: 'ConfigLoaded',
        data: { trading_enabled: null, markets: [market(BTC, { taker_fee_bps: 2 }), market(ETH, { position_limit: 250 })] },
      });
      expect(s.exchange.state.markets.get(ETH)?.position_limit).to.equal(250);
    });
  });

  describe('position_limit', () => {
    it('refuses past the market\'s own bound with the spec\'s text naming it; other markets keep 1000', () => {
      const world = [...WORLD, marketUpserted(ETH, { position_limit: 20 })];
      const err = given(...world).when(submit(ALICE, 'BUY', 100, 21, 'o', ETH)).thenRejects('position_limit_exceeded', 'projected net position for ETH-USD would be 21; limit is +/-20');
      expect(err.status).to.equal(409);
      given(...world).when(submit(ALICE, 'BUY', 100, 20, 'o', ETH)).then({ type: 'OrderSubmitted', data: { order: { id: 'o', trader_id: ALICE, market: ETH, side: 'BUY', price: 100, quantity: 20 }, fills: [], remaining: 20 } });
      given(...world).when(submit(ALICE, 'BUY', 100, 1000, 'o', BTC)).then({ type: 'OrderSubmitted', data: { order: { id: 'o', trader_id: ALICE, market: BTC, side: 'BUY', price: 100, quantity: 1000 }, fills: [], remaining: 1000 } });
      // Worst case, as for the default limit: resting orders of the side count.
      given(...world, orderRested('r', ALICE, 'SELL', 150, 15, ETH)).when(submit(ALICE, 'SELL', 150, 6, 'o', ETH)).thenRejects('position_limit_exceeded', 'projected net position for ETH-USD would be -21; limit is +/-20');
    });

    it('a patched limit applies to the next order; positions and resting orders stay', () => {
      const patched = [...WORLD, orderRested('r', ALICE, 'BUY', 90, 30), { type: 'MarketPatched', data: { market_id: BTC, changes: { position_limit: 10 } } } as const];
      const s = given(...patched);
      expect(s.exchange.state.books.order('r')?.remaining).to.equal(30);
      s.when(submit(ALICE, 'BUY', 90, 1, 'o2')).thenRejects('position_limit_exceeded', 'projected net position for BTC-USD would be 31; limit is +/-10');
      // Reducing the position is still within the limit.
      given(...patched).when(submit(ALICE, 'SELL', 200, 10, 'o3')).then({ type: 'OrderSubmitted', data: { order: { id: 'o3', trader_id: ALICE, market: BTC, side: 'SELL', price: 200, quantity: 10 }, fills: [], remaining: 10 } });
    });
  });

  describe('max_open_orders', () => {
    const capped = [...WORLD.slice(1), marketUpserted(BTC, { max_open_orders: 2 }), orderRested('a1', ALICE, 'BUY', 90, 1), orderRested('a2', ALICE, 'BUY', 91, 1)];

    it('refuses one more resting order: 409 too_many_open_orders with the spec\'s text; nothing changes', () => {
      const err = given(...capped).when(submit(ALICE, 'BUY', 92, 1, 'a3')).thenRejects('too_many_open_orders', 'too many open orders: max 2 in BTC-USD');
      expect(err.status).to.equal(409);
      // Another trader, another market: their own count.
      given(...capped).when(submit(BOB, 'BUY', 92, 1, 'b1')).then({ type: 'OrderSubmitted', data: { order: { id: 'b1', trader_id: BOB, market: BTC, side: 'BUY', price: 92, quantity: 1 }, fills: [], remaining: 1 } });
    });

    it('an order that fills in full, or an IOC, FOK or market order, never counts', () => {
      const withAsk = [...capped, orderRested('b-ask', BOB, 'SELL', 100, 10)];
      given(...withAsk).when(submit(ALICE, 'BUY', 100, 3, 't')).then({
        type: 'OrderSubmitted',
        data: { order: { id: 't', trader_id: ALICE, market: BTC, side: 'BUY', price: 100, quantity: 3 }, fills: [{ fill_id: fillId(SEED, 0), maker_order_id: 'b-ask', maker_trader_id: BOB, price: 100, quantity: 3, maker_remaining: 7 }], remaining: 0 },
      });
      for (const tif of ['IOC', 'FOK'] as TimeInForce[]) {
        given(...withAsk)
          .when({ ...submit(ALICE, 'BUY', 100, 20, 't'), time_in_force: tif })
          .then({
            type: 'OrderSubmitted',
            data: {
              order: { id: 't', trader_id: ALICE, market: BTC, side: 'BUY', price: 100, quantity: 20, type: 'LIMIT', time_in_force: tif, self_trade_prevention: 'NONE', client_order_id: null },
              fills: tif === 'IOC' ? [{ fill_id: fillId(SEED, 0), maker_order_id: 'b-ask', maker_trader_id: BOB, price: 100, quantity: 10, maker_remaining: 0 }] : [],
              self_trade_canceled: [],
              remaining: 0,
              status: tif === 'IOC' ? 'canceled' : 'expired',
            },
          });
      }
      given(...withAsk)
        .when({ ...submit(ALICE, 'BUY', 100, 20, 't'), price: null, order_type: 'MARKET', time_in_force: 'IOC' })
        .then({
          type: 'OrderSubmitted',
          data: {
            order: { id: 't', trader_id: ALICE, market: BTC, side: 'BUY', price: null, quantity: 20, type: 'MARKET', time_in_force: 'IOC', self_trade_prevention: 'NONE', client_order_id: null },
            fills: [{ fill_id: fillId(SEED, 0), maker_order_id: 'b-ask', maker_trader_id: BOB, price: 100, quantity: 10, maker_remaining: 0 }],
            self_trade_canceled: [],
            remaining: 0,
            status: 'canceled',
          },
        });
    });

    it('an order that fills in part and would rest the rest counts, and is refused whole', () => {
      given(...capped, orderRested('b-ask', BOB, 'SELL', 100, 1)).when(submit(ALICE, 'BUY', 100, 3, 't')).thenRejects('too_many_open_orders');
    });

    it('counts the open orders as the order leaves them: its own makers it filled or canceled are gone', () => {
      // Alice sells into her own resting bid: a2 fills in full, so the remainder may rest as her second.
      const own = [...WORLD.slice(1), marketUpserted(BTC, { max_open_orders: 2 }), orderRested('a1', ALICE, 'SELL', 120, 1), orderRested('a2', ALICE, 'BUY', 91, 1)];
      given(...own).when(submit(ALICE, 'SELL', 91, 2, 't')).then({
        type: 'OrderSubmitted',
        data: { order: { id: 't', trader_id: ALICE, market: BTC, side: 'SELL', price: 91, quantity: 2 }, fills: [{ fill_id: fillId(SEED, 0), maker_order_id: 'a2', maker_trader_id: ALICE, price: 91, quantity: 1, maker_remaining: 0 }], remaining: 1 },
      });
      // Self-trade prevention cancels a2 instead: the same room.
      given(...own)
        .when({ ...submit(ALICE, 'SELL', 91, 2, 't'), self_trade_prevention: 'CANCEL_MAKER' })
        .then({
          type: 'OrderSubmitted',
          data: {
            order: { id: 't', trader_id: ALICE, market: BTC, side: 'SELL', price: 91, quantity: 2, type: 'LIMIT', time_in_force: 'GTC', self_trade_prevention: 'CANCEL_MAKER', client_order_id: null },
            fills: [],
            self_trade_canceled: [{ order_id: 'a2', side: 'BUY', price: 91, remaining: 1, after_fills: 0 }],
            remaining: 2,
            status: 'open',
          },
        });
    });

    it('a lowered cap keeps the orders resting and refuses new ones until below it; null lifts it', () => {
      const lowered = given(...capped, { type: 'MarketPatched', data: { market_id: BTC, changes: { max_open_orders: 1 } } });
      expect(lowered.exchange.state.books.openOrders(ALICE)).to.have.length(2);
      lowered.when(submit(ALICE, 'BUY', 80, 1, 'x')).thenRejects('too_many_open_orders', 'too many open orders: max 1 in BTC-USD');
      given(...capped, { type: 'MarketPatched', data: { market_id: BTC, changes: { max_open_orders: 1 } } }, { type: 'MarketPatched', data: { market_id: BTC, changes: { max_open_orders: null } } })
        .when(submit(ALICE, 'BUY', 80, 1, 'x'))
        .then({ type: 'OrderSubmitted', data: { order: { id: 'x', trader_id: ALICE, market: BTC, side: 'BUY', price: 80, quantity: 1 }, fills: [], remaining: 1 } });
    });

    it('is checked after the position limit, in the spec\'s order of checks', () => {
      given(...capped).when(submit(ALICE, 'BUY', 92, 1000)).thenRejects('position_limit_exceeded');
      given(traderProvisioned(ALICE, 'alice'), marketUpserted(BTC, { max_open_orders: 1 }), orderRested('a1', ALICE, 'BUY', 90, 1), { type: 'TradingStopped', data: {} })
        .when({ ...submit(ALICE, 'BUY', 92, 1), ...GTC_LIMIT })
        .thenRejects('trading_disabled');
    });
  });
});
