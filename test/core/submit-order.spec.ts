import { expect } from 'chai';
import { fillId } from '../../src/commands/fill-ids.ts';
import type { FillFact } from '../../src/events/types.ts';
import { at, given, type AnyBody, type Scenario } from './dsl.ts';
import { ALICE, BOB, BTC, CAROL, ETH, marketUpserted, orderFilled, orderRested, SEED, submit, traderProvisioned, WORLD } from './fixtures.ts';

describe('core: SubmitOrder', () => {
  describe('matching', () => {
    it('rests an order that does not cross', () => {
      given(...WORLD)
        .when(submit(ALICE, 'BUY', 99, 5, 'o1'))
        .then({ type: 'OrderSubmitted', data: { order: { id: 'o1', trader_id: ALICE, market: BTC, side: 'BUY', price: 99, quantity: 5 }, fills: [], remaining: 5 } });
    });

    it('executes at the maker price and rests the remainder', () => {
      const s = given(...WORLD, orderRested('m1', BOB, 'SELL', 101, 3));
      s.when(submit(ALICE, 'BUY', 105, 5, 't1')).then({
        type: 'OrderSubmitted',
        data: {
          order: { id: 't1', trader_id: ALICE, market: BTC, side: 'BUY', price: 105, quantity: 5 },
          fills: [{ fill_id: fillId(SEED, 0), maker_order_id: 'm1', maker_trader_id: BOB, price: 101, quantity: 3, maker_remaining: 0 }],
          remaining: 2,
        },
      });
      const book = s.exchange.state.books.book(BTC);
      expect(book?.bestBid).to.equal(105);
      expect(book?.bestAsk).to.equal(null);
    });

    it('walks levels best price first and FIFO within a level', () => {
      given(
        ...WORLD,
        traderProvisioned(CAROL, 'carol'),
        orderRested('a', BOB, 'SELL', 102, 1),
        orderRested('b', CAROL, 'SELL', 101, 2),
        orderRested('c', BOB, 'SELL', 101, 2),
        orderRested('d', BOB, 'SELL', 103, 9),
      )
        .when(submit(ALICE, 'BUY', 102, 4, 't'))
        .then({
          type: 'OrderSubmitted',
          data: {
            order: { id: 't', trader_id: ALICE, market: BTC, side: 'BUY', price: 102, quantity: 4 },
            fills: [
              { fill_id: fillId(SEED, 0), maker_order_id: 'b', maker_trader_id: CAROL, price: 101, quantity: 2, maker_remaining: 0 },
              { fill_id: fillId(SEED, 1), maker_order_id: 'c', maker_trader_id: BOB, price: 101, quantity: 2, maker_remaining: 0 },
            ],
            remaining: 0,
          },
        });
    });

    it('partially fills a maker, which keeps its place', () => {
      const s = given(...WORLD, orderRested('m1', BOB, 'BUY', 100, 10), orderRested('m2', BOB, 'BUY', 100, 1));
      s.when(submit(ALICE, 'SELL', 90, 4, 't')).then({
        type: 'OrderSubmitted',
        data: {
          order: { id: 't', trader_id: ALICE, market: BTC, side: 'SELL', price: 90, quantity: 4 },
          fills: [{ fill_id: fillId(SEED, 0), maker_order_id: 'm1', maker_trader_id: BOB, price: 100, quantity: 4, maker_remaining: 6 }],
          remaining: 0,
        },
      });
      const level = s.exchange.state.books.book(BTC)?.bids.bestLevel;
      expect(level?.head?.id).to.equal('m1');
      expect(level?.head?.remaining).to.equal(6);
      expect(level?.total).to.equal(7);
    });

    it('records positions and fills for both sides', () => {
      const s = given(...WORLD, orderRested('m1', BOB, 'SELL', 101, 3));
      s.when(submit(ALICE, 'BUY', 101, 3, 't')).then({
        type: 'OrderSubmitted',
        data: {
          order: { id: 't', trader_id: ALICE, market: BTC, side: 'BUY', price: 101, quantity: 3 },
          fills: [{ fill_id: fillId(SEED, 0), maker_order_id: 'm1', maker_trader_id: BOB, price: 101, quantity: 3, maker_remaining: 0 }],
          remaining: 0,
        },
      });
      const state = s.exchange.state;
      expect(state.positions.net(ALICE, BTC)).to.equal(3);
      expect(state.positions.net(BOB, BTC)).to.equal(-3);
      expect(s.history.fills.of(ALICE)).to.have.length(1);
      // Each side sees the fill as its own: the same execution, its fee and its liquidity.
      expect(s.history.fills.of(BOB)).to.deep.equal(s.history.fills.of(ALICE).map((f) => ({ ...f, liquidity: 'maker' })));
      expect(s.history.fills.of(ALICE)[0]).to.deep.include({ market: BTC, maker_order_id: 'm1', taker_order_id: 't', price: 101, quantity: 3, fee: 0, liquidity: 'taker' });
      expect(state.fills.count).to.equal(1);
    });
  });

  describe('admission checks, each with its code and in the specification order', () => {
    const stopped = [...WORLD, { type: 'TradingStopped', data: {} } as const];

    it('1. trading stopped: trading_disabled, before every other check', () => {
      given(...stopped).when(submit(ALICE, 'BUY', 7, 0, 'x', 'not a symbol')).thenRejects('trading_disabled', 'trading is disabled');
      given(...stopped).when(submit(ALICE, 'BUY', 3, 1)).thenRejects('trading_disabled');
    });

    it('2. market symbol not BASE-QUOTE: invalid_market', () => {
      for (const bad of ['BTCUSD', 'BTC-', '-USD', 'BTC-USD-EUR', 'BTC USD', '']) given(...WORLD).when(submit(ALICE, 'BUY', 0, 0, 'x', bad)).thenRejects('invalid_market');
    });

    it('2. market not defined: market_not_configured (404) before price checks', () => {
      const err = given(...WORLD).when(submit(ALICE, 'BUY', 0, 0, 'x', ETH)).thenRejects('market_not_configured');
      expect(err.status).to.equal(404);
    });

    it('2. market disabled: market_disabled before price checks', () => {
      given(...WORLD, marketUpserted(ETH, { enabled: false })).when(submit(ALICE, 'BUY', 0, 0, 'x', ETH)).thenRejects('market_disabled');
    });

    it('2. market settled: market_settled', () => {
      given(...WORLD, { type: 'MarketSettled', data: { market_id: BTC, settlement_price: 100, canceled_orders: 0, affected_traders: 0, settled_quantity: 0, announcement: { message_id: 'm', target_username: null, target_trader_id: null, market: BTC, level: 'info', title: null, body: 'settled' } } })
        .when(submit(ALICE, 'BUY', 0, 0))
        .thenRejects('market_settled');
    });

    it('3. price zero, negative, fractional or beyond 2^53-1: invalid_price before quantity checks', () => {
      for (const price of [0, -1, 1.5, 2 ** 53, 1e300]) given(...WORLD).when(submit(ALICE, 'BUY', price, 0)).thenRejects('invalid_price');
    });

    it('3. price not a tick multiple: tick_size_violation before quantity checks', () => {
      given(marketUpserted(BTC, { tick_size: 5 }), traderProvisioned(ALICE, 'alice')).when(submit(ALICE, 'BUY', 101, 0)).thenRejects('tick_size_violation');
    });

    it('4. quantity zero, negative, fractional or huge: invalid_quantity', () => {
      for (const q of [0, -3, 0.5, 2 ** 53]) given(...WORLD).when(submit(ALICE, 'BUY', 100, q)).thenRejects('invalid_quantity');
    });

    it('4. quantity below the minimum: quantity_below_minimum before the position limit', () => {
      given(marketUpserted(BTC, { min_order_quantity: 10 }), traderProvisioned(ALICE, 'alice')).when(submit(ALICE, 'BUY', 100, 5)).thenRejects('quantity_below_minimum');
    });

    it('5. worst case beyond +/-1000: position_limit_exceeded with the exact text', () => {
      given(...WORLD).when(submit(ALICE, 'BUY', 100, 1001)).thenRejects('position_limit_exceeded', 'projected net position for BTC-USD would be 1001; limit is +/-1000');
      given(...WORLD).when(submit(ALICE, 'SELL', 100, 1001)).thenRejects('position_limit_exceeded', 'projected net position for BTC-USD would be -1001; limit is +/-1000');
    });

    it('5. counts the position and every resting order of the same side', () => {
      const world = [...WORLD, orderRested('m', BOB, 'SELL', 100, 600), { type: 'OrderSubmitted', data: { order: { id: 'b1', trader_id: ALICE, market: BTC, side: 'BUY', price: 100, quantity: 600 }, fills: [{ fill_id: 'f', maker_order_id: 'm', maker_trader_id: BOB, price: 100, quantity: 600, maker_remaining: 0 }], remaining: 0 } } as const, orderRested('b2', ALICE, 'BUY', 90, 300), orderRested('s1', ALICE, 'SELL', 200, 50)];
      given(...world).when(submit(ALICE, 'BUY', 80, 101)).thenRejects('position_limit_exceeded', 'projected net position for BTC-USD would be 1001; limit is +/-1000');
      given(...world).when(submit(ALICE, 'BUY', 80, 100)).then(orderRested('order-new', ALICE, 'BUY', 80, 100));
      // Selling reduces risk: 600 - 50 - 1600 = -1050 is refused, -1000 is fine.
      given(...world).when(submit(ALICE, 'SELL', 300, 1600)).thenRejects('position_limit_exceeded', 'projected net position for BTC-USD would be -1050; limit is +/-1000');
      given(...world).when(submit(ALICE, 'SELL', 300, 1550)).then(orderRested('order-new', ALICE, 'SELL', 300, 1550));
    });

    it('numbers whose notional leaves 2^53-1: overflow (500), never a rounded figure', () => {
      const err = given(...WORLD).when(submit(ALICE, 'BUY', 2 ** 50, 1000)).thenRejects('overflow');
      expect(err.status).to.equal(500);
    });

    it('refuses fills that would push a cost basis past 2^53-1', () => {
      // Resting orders from a log written before prices were bounded still fold; a fill against them
      // that would leave the exact range is refused.
      const big = 2 ** 52;
      given(...WORLD, orderRested('m1', BOB, 'SELL', big, 1), orderRested('m2', BOB, 'SELL', big, 1)).when(submit(ALICE, 'BUY', big, 2)).thenRejects('overflow');
    });

    describe("decide's trial of every fill against the positions it would leave", () => {
      // Alice's realized PnL is brought to within 1,991 of 2^53-1 by a full round trip (1,000 bought from
      // Bob at 1, sold to Carol at the highest markable price), written as events (folded, not decided).
      // Carol's cost basis is then at the edge too, so the later bids are Bob's (closing his short).
      const max = Math.floor(Number.MAX_SAFE_INTEGER / 1000);
      const fill = (id: string, maker: string, makerTrader: string, price: number, quantity: number): FillFact => ({ fill_id: id, maker_order_id: maker, maker_trader_id: makerTrader, price, quantity, maker_remaining: 0 });
      const nearTheEdge: AnyBody[] = [
        ...WORLD,
        traderProvisioned(CAROL, 'carol'),
        orderRested('b1', BOB, 'SELL', 1, 1000),
        orderFilled('a1', ALICE, 'BUY', 1, 1000, [fill('f1', 'b1', BOB, 1, 1000)]),
        orderRested('c1', CAROL, 'BUY', max, 1000),
        orderFilled('a2', ALICE, 'SELL', max, 1000, [fill('f2', 'c1', CAROL, max, 1000)]),
      ];
      const realized = (s: Scenario): number => s.exchange.state.positions.values(ALICE, BTC).realized;

      it('counts the fills before it in the same order: each alone fits, the second after the first does not', () => {
        // Long 2 at 1, then a sell of 2 at 1,000 against two bids: each closing fill realizes 999, and
        // only 1,991 - 999 = 992 is left after the first.
        const world: AnyBody[] = [...nearTheEdge, orderRested('b2', BOB, 'SELL', 1, 2), orderFilled('a3', ALICE, 'BUY', 1, 2, [fill('f3', 'b2', BOB, 1, 2)]), orderRested('c2', BOB, 'BUY', 1000, 1), orderRested('c3', BOB, 'BUY', 1000, 1)];
        expect(Number.MAX_SAFE_INTEGER - realized(given(...world))).to.equal(1991);
        given(...world).when(submit(ALICE, 'SELL', 1000, 2)).thenRejects('overflow');
        const one = given(...world);
        const event = one.exchange.execute({ ...submit(ALICE, 'SELL', 1000, 1), time: at(9_000_000) });
        expect(event.type === 'OrderSubmitted' && event.data.fills.length).to.equal(1);
        expect(Number.MAX_SAFE_INTEGER - realized(one)).to.equal(992);
      });

      it('applies a self-trade to the one position in turn, taker then maker, as the fold does', () => {
        // Short 2 at 1,000, 992 from the edge, with a bid of its own at 1. Selling 1 into that bid makes the
        // short 3 (average 667) and then closes 1 of it at 1: 666 realized, which fits. Taken from the
        // position before the taker's side (average 1,000), the maker's side alone would realize 999.
        const world: AnyBody[] = [
          ...nearTheEdge,
          orderRested('b2', BOB, 'SELL', 1, 1),
          orderFilled('a3', ALICE, 'BUY', 1, 1, [fill('f3', 'b2', BOB, 1, 1)]),
          orderRested('c2', BOB, 'BUY', 1000, 3),
          orderFilled('a4', ALICE, 'SELL', 1000, 3, [fill('f4', 'c2', BOB, 1000, 3)]),
          orderRested('own', ALICE, 'BUY', 1, 1),
        ];
        const s = given(...world);
        expect(Number.MAX_SAFE_INTEGER - realized(s)).to.equal(992);
        expect(s.exchange.state.positions.values(ALICE, BTC).net).to.equal(-2);
        const event = s.exchange.execute({ ...submit(ALICE, 'SELL', 1, 1), time: at(9_000_000) });
        expect(event.type === 'OrderSubmitted' && event.data.fills.map((f) => [f.maker_order_id, f.maker_trader_id])).to.deep.equal([['own', ALICE]]);
        expect(Number.MAX_SAFE_INTEGER - realized(s)).to.equal(992 - 666);
      });
    });

    it('accepts prices up to the highest a full position can be marked at, and refuses above with overflow', () => {
      const max = Math.floor(Number.MAX_SAFE_INTEGER / 1000);
      given(...WORLD).when(submit(ALICE, 'SELL', max, 1, 'big')).then(orderRested('big', ALICE, 'SELL', max, 1));
      given(...WORLD).when(submit(ALICE, 'SELL', max + 1, 1, 'big')).thenRejects('overflow');
      given(...WORLD).when(submit(ALICE, 'SELL', Number.MAX_SAFE_INTEGER, 1, 'big')).thenRejects('overflow');
    });
  });

  it('stamps time on the order and keeps it in the open orders', () => {
    const s = given(...WORLD);
    const e = s.when(submit(ALICE, 'BUY', 99, 5, 'o1')).then(orderRested('o1', ALICE, 'BUY', 99, 5));
    expect(s.exchange.state.books.openOrders(ALICE)).to.deep.equal([
      {
        id: 'o1',
        trader_id: ALICE,
        market: BTC,
        side: 'BUY',
        price: 99,
        quantity: 5,
        remaining: 5,
        created_at: e.time,
        client_order_id: null,
        type: 'LIMIT',
        time_in_force: 'GTC',
        self_trade_prevention: 'NONE',
        status: 'open',
        average_fill_price: null,
      },
    ]);
    expect(e.time > at(0)).to.equal(true);
  });
});
