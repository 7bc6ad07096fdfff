// Order types, time in force, self-trade prevention, client order ids and cancel-all, as
// given / when / then specs (trading-extensions.md).
import { expect } from 'chai';
import { DuplicateSubmission } from '../../src/commands/duplicate-submission.ts';
import { fillId } from '../../src/commands/fill-ids.ts';
import { GTC_LIMIT } from '../../src/commands/order-terms.ts';
import type { CommandOf } from '../../src/commands/types.ts';
import type { EventBody, OrderType, SelfTradePrevention, Side, TimeInForce } from '../../src/events/types.ts';
import { stateHash } from '../../src/projections/state-hash.ts';
import { at, given } from './dsl.ts';
import { ALICE, BOB, BTC, CAROL, ETH, marketUpserted, orderRested, SEED, traderProvisioned, WORLD } from './fixtures.ts';

interface Terms {
  type?: OrderType;
  tif?: TimeInForce;
  stp?: SelfTradePrevention;
  cid?: string;
  market?: string;
}

function order(trader: string, side: Side, price: number | null, quantity: number, id: string, t: Terms = {}): Omit<CommandOf<'SubmitOrder'>, 'time'> {
  return {
    type: 'SubmitOrder',
    trader_id: trader,
    market: t.market ?? BTC,
    side,
    price,
    quantity,
    ...GTC_LIMIT,
    order_type: t.type ?? 'LIMIT',
    time_in_force: t.tif ?? (t.type === 'MARKET' ? 'IOC' : 'GTC'),
    self_trade_prevention: t.stp ?? 'NONE',
    client_order_id: t.cid ?? null,
    order_id: id,
    fill_id_seed: SEED,
  };
}

function submitted(trader: string, side: Side, price: number | null, quantity: number, id: string, t: Terms, outcome: { fills?: unknown[]; stp?: unknown[]; remaining: number; status: string }): EventBody {
  return {
    type: 'OrderSubmitted',
    data: {
      order: {
        id,
        trader_id: trader,
        market: t.market ?? BTC,
        side,
        price,
        quantity,
        type: t.type ?? 'LIMIT',
        time_in_force: t.tif ?? (t.type === 'MARKET' ? 'IOC' : 'GTC'),
        self_trade_prevention: t.stp ?? 'NONE',
        client_order_id: t.cid ?? null,
      },
      fills: outcome.fills ?? [],
      self_trade_canceled: outcome.stp ?? [],
      remaining: outcome.remaining,
      status: outcome.status,
    },
  } as EventBody;
}

function fill(n: number, maker: string, makerTrader: string, price: number, quantity: number, makerRemaining: number) {
  return { fill_id: fillId(SEED, n), maker_order_id: maker, maker_trader_id: makerTrader, price, quantity, maker_remaining: makerRemaining };
}

const ASKS = [orderRested('a1', BOB, 'SELL', 101, 2), orderRested('a2', BOB, 'SELL', 102, 3), orderRested('a3', BOB, 'SELL', 103, 4)];

describe('core: order types and time in force', () => {
  describe('MARKET', () => {
    it('takes liquidity across levels best first and cancels what does not fill', () => {
      const s = given(...WORLD, ...ASKS);
      s.when(order(ALICE, 'BUY', null, 12, 't', { type: 'MARKET' })).then(
        submitted(ALICE, 'BUY', null, 12, 't', { type: 'MARKET' }, { fills: [fill(0, 'a1', BOB, 101, 2, 0), fill(1, 'a2', BOB, 102, 3, 0), fill(2, 'a3', BOB, 103, 4, 0)], remaining: 0, status: 'canceled' }),
      );
      const view = s.exchange.state.books.anyOrder('t');
      expect(view?.status).to.equal('canceled');
      expect(view?.remaining).to.equal(3);
      expect(s.exchange.state.books.book(BTC)?.orderCount).to.equal(0);
    });

    it('fills in full within the first level, and never rests', () => {
      given(...WORLD, ...ASKS)
        .when(order(ALICE, 'BUY', null, 1, 't', { type: 'MARKET' }))
        .then(submitted(ALICE, 'BUY', null, 1, 't', { type: 'MARKET' }, { fills: [fill(0, 'a1', BOB, 101, 1, 1)], remaining: 0, status: 'filled' }));
    });

    it('against an empty opposite side: 409 no_liquidity and no event', () => {
      given(...WORLD, orderRested('b1', BOB, 'BUY', 99, 2)).when(order(ALICE, 'BUY', null, 1, 't', { type: 'MARKET' })).thenRejects('no_liquidity', 'no liquidity');
    });

    it('refuses a price, and any time in force but IOC', () => {
      given(...WORLD, ...ASKS).when(order(ALICE, 'BUY', 101, 1, 't', { type: 'MARKET' })).thenRejects('invalid_price', 'price is not allowed on a market order');
      for (const tif of ['GTC', 'FOK', 'POST_ONLY'] as const) {
        given(...WORLD, ...ASKS).when(order(ALICE, 'BUY', null, 1, 't', { type: 'MARKET', tif })).thenRejects('invalid_time_in_force', 'market orders take time_in_force IOC');
      }
    });

    it('checks the position limit on the full quantity, like a limit order', () => {
      given(...WORLD, ...ASKS).when(order(ALICE, 'BUY', null, 1001, 't', { type: 'MARKET' })).thenRejects('position_limit_exceeded', 'projected net position for BTC-USD would be 1001; limit is +/-1000');
    });

    it('shows a null price in its views', () => {
      const s = given(...WORLD, ...ASKS);
      s.when(order(ALICE, 'BUY', null, 1, 't', { type: 'MARKET' })).then(submitted(ALICE, 'BUY', null, 1, 't', { type: 'MARKET' }, { fills: [fill(0, 'a1', BOB, 101, 1, 1)], remaining: 0, status: 'filled' }));
      expect(s.exchange.state.books.anyOrder('t')?.price).to.equal(0);
    });
  });

  describe('IOC', () => {
    it('fills what crosses at once and cancels the rest', () => {
      given(...WORLD, ...ASKS)
        .when(order(ALICE, 'BUY', 102, 10, 't', { tif: 'IOC' }))
        .then(submitted(ALICE, 'BUY', 102, 10, 't', { tif: 'IOC' }, { fills: [fill(0, 'a1', BOB, 101, 2, 0), fill(1, 'a2', BOB, 102, 3, 0)], remaining: 0, status: 'canceled' }));
    });

    it('that crosses nothing is canceled whole, with no fills', () => {
      const s = given(...WORLD, ...ASKS);
      s.when(order(ALICE, 'BUY', 100, 5, 't', { tif: 'IOC' })).then(submitted(ALICE, 'BUY', 100, 5, 't', { tif: 'IOC' }, { remaining: 0, status: 'canceled' }));
      expect(s.exchange.state.books.book(BTC)?.bestBid).to.equal(null);
    });
  });

  describe('FOK', () => {
    it('that just fits fills in full', () => {
      given(...WORLD, ...ASKS)
        .when(order(ALICE, 'BUY', 102, 5, 't', { tif: 'FOK' }))
        .then(submitted(ALICE, 'BUY', 102, 5, 't', { tif: 'FOK' }, { fills: [fill(0, 'a1', BOB, 101, 2, 0), fill(1, 'a2', BOB, 102, 3, 0)], remaining: 0, status: 'filled' }));
    });

    it('that just fails is accepted and expires with no fills, the book unchanged', () => {
      const s = given(...WORLD, ...ASKS);
      const before = s.exchange.state.books.book(BTC)?.orderCount;
      s.when(order(ALICE, 'BUY', 102, 6, 't', { tif: 'FOK' })).then(submitted(ALICE, 'BUY', 102, 6, 't', { tif: 'FOK' }, { remaining: 0, status: 'expired' }));
      expect(s.exchange.state.books.book(BTC)?.orderCount).to.equal(before);
      expect(s.exchange.state.books.anyOrder('t')?.status).to.equal('expired');
      expect(s.exchange.state.books.anyOrder('t')?.remaining).to.equal(6);
    });

    it('counts only what it could trade under self-trade prevention', () => {
      const world = [...WORLD, orderRested('own', ALICE, 'SELL', 101, 5), ...ASKS];
      // Without STP the own order counts: 5 + 2 + 3 >= 8.
      given(...world).when(order(ALICE, 'BUY', 102, 8, 't', { tif: 'FOK' })).then(
        submitted(ALICE, 'BUY', 102, 8, 't', { tif: 'FOK' }, { fills: [fill(0, 'own', ALICE, 101, 5, 0), fill(1, 'a1', BOB, 101, 2, 0), fill(2, 'a2', BOB, 102, 1, 2)], remaining: 0, status: 'filled' }),
      );
      // CANCEL_MAKER skips it: 2 + 3 = 5 < 8, expired, and the own order stays.
      const s = given(...world);
      s.when(order(ALICE, 'BUY', 102, 8, 't', { tif: 'FOK', stp: 'CANCEL_MAKER' })).then(submitted(ALICE, 'BUY', 102, 8, 't', { tif: 'FOK', stp: 'CANCEL_MAKER' }, { remaining: 0, status: 'expired' }));
      expect(s.exchange.state.books.order('own')?.remaining).to.equal(5);
      // CANCEL_MAKER with enough beside it: fills, and cancels the own order it met.
      given(...world).when(order(ALICE, 'BUY', 102, 5, 't', { tif: 'FOK', stp: 'CANCEL_MAKER' })).then(
        submitted(ALICE, 'BUY', 102, 5, 't', { tif: 'FOK', stp: 'CANCEL_MAKER' }, {
          fills: [fill(0, 'a1', BOB, 101, 2, 0), fill(1, 'a2', BOB, 102, 3, 0)],
          stp: [{ order_id: 'own', side: 'SELL', price: 101, remaining: 5, after_fills: 0 }],
          remaining: 0,
          status: 'filled',
        }),
      );
      // CANCEL_TAKER stops at the own order, which comes first: nothing tradable.
      given(...world).when(order(ALICE, 'BUY', 102, 1, 't', { tif: 'FOK', stp: 'CANCEL_TAKER' })).then(submitted(ALICE, 'BUY', 102, 1, 't', { tif: 'FOK', stp: 'CANCEL_TAKER' }, { remaining: 0, status: 'expired' }));
    });
  });

  describe('POST_ONLY', () => {
    it('refuses an order at a price equal to the best opposite one (it would take)', () => {
      given(...WORLD, ...ASKS).when(order(ALICE, 'BUY', 101, 1, 't', { tif: 'POST_ONLY' })).thenRejects('post_only_would_take', 'post-only order would take liquidity');
    });

    it('rests when it does not cross', () => {
      given(...WORLD, ...ASKS).when(order(ALICE, 'BUY', 100, 4, 't', { tif: 'POST_ONLY' })).then(submitted(ALICE, 'BUY', 100, 4, 't', { tif: 'POST_ONLY' }, { remaining: 4, status: 'open' }));
    });

    it('is judged before self-trade prevention: crossing the trader\'s own order is refused too', () => {
      given(...WORLD, orderRested('own', ALICE, 'SELL', 101, 1)).when(order(ALICE, 'BUY', 101, 1, 't', { tif: 'POST_ONLY', stp: 'CANCEL_MAKER' })).thenRejects('post_only_would_take');
    });
  });
});

describe('core: self-trade prevention', () => {
  const OWN_LEVEL = [...WORLD, traderProvisioned(CAROL, 'carol'), orderRested('b0', BOB, 'SELL', 100, 1), orderRested('o1', ALICE, 'SELL', 101, 2), orderRested('c1', CAROL, 'SELL', 101, 1), orderRested('o2', ALICE, 'SELL', 101, 3), orderRested('b1', BOB, 'SELL', 101, 4)];

  it('NONE trades with the trader\'s own orders as before', () => {
    given(...OWN_LEVEL).when(order(ALICE, 'BUY', 101, 3, 't')).then(
      submitted(ALICE, 'BUY', 101, 3, 't', {}, { fills: [fill(0, 'b0', BOB, 100, 1, 0), fill(1, 'o1', ALICE, 101, 2, 0)], remaining: 0, status: 'filled' }),
    );
  });

  it('CANCEL_TAKER cancels the rest of the incoming order at the first own order', () => {
    const s = given(...OWN_LEVEL);
    s.when(order(ALICE, 'BUY', 101, 5, 't', { stp: 'CANCEL_TAKER' })).then(submitted(ALICE, 'BUY', 101, 5, 't', { stp: 'CANCEL_TAKER' }, { fills: [fill(0, 'b0', BOB, 100, 1, 0)], remaining: 0, status: 'canceled' }));
    expect(s.exchange.state.books.order('o1')?.remaining).to.equal(2);
  });

  it('CANCEL_MAKER cancels every own order met at one level and goes on matching', () => {
    const s = given(...OWN_LEVEL);
    s.when(order(ALICE, 'BUY', 101, 5, 't', { stp: 'CANCEL_MAKER' })).then(
      submitted(ALICE, 'BUY', 101, 5, 't', { stp: 'CANCEL_MAKER' }, {
        fills: [fill(0, 'b0', BOB, 100, 1, 0), fill(1, 'c1', CAROL, 101, 1, 0), fill(2, 'b1', BOB, 101, 3, 1)],
        stp: [
          { order_id: 'o1', side: 'SELL', price: 101, remaining: 2, after_fills: 1 },
          { order_id: 'o2', side: 'SELL', price: 101, remaining: 3, after_fills: 2 },
        ],
        remaining: 0,
        status: 'filled',
      }),
    );
    const books = s.exchange.state.books;
    expect(books.order('o1')).to.equal(undefined);
    expect(books.anyOrder('o1')?.status).to.equal('canceled');
    expect(books.anyOrder('o2')?.status).to.equal('canceled');
  });

  it('CANCEL_BOTH cancels the own order met and the rest of the incoming order', () => {
    const s = given(...OWN_LEVEL);
    s.when(order(ALICE, 'BUY', 101, 5, 't', { stp: 'CANCEL_BOTH' })).then(
      submitted(ALICE, 'BUY', 101, 5, 't', { stp: 'CANCEL_BOTH' }, { fills: [fill(0, 'b0', BOB, 100, 1, 0)], stp: [{ order_id: 'o1', side: 'SELL', price: 101, remaining: 2, after_fills: 1 }], remaining: 0, status: 'canceled' }),
    );
    expect(s.exchange.state.books.order('o2')?.remaining).to.equal(3);
  });

  it('the book feed shows the canceled own orders as removals, in the order they happened', () => {
    const s = given(...OWN_LEVEL);
    const kinds: string[] = [];
    s.exchange.state.marketData.deltas$.subscribe((d) => {
      for (const e of d.events) kinds.push(e.kind === 'order_removed' ? `removed ${e.order_id}` : e.kind === 'trade' ? `trade ${e.maker_order_id}` : `${e.kind}`);
    });
    s.when(order(ALICE, 'BUY', 101, 2, 't', { stp: 'CANCEL_MAKER' })).then(
      submitted(ALICE, 'BUY', 101, 2, 't', { stp: 'CANCEL_MAKER' }, { fills: [fill(0, 'b0', BOB, 100, 1, 0), fill(1, 'c1', CAROL, 101, 1, 0)], stp: [{ order_id: 'o1', side: 'SELL', price: 101, remaining: 2, after_fills: 1 }], remaining: 0, status: 'filled' }),
    );
    expect(kinds).to.deep.equal(['removed b0', 'trade b0', 'removed o1', 'removed c1', 'trade c1']);
  });
});

describe('core: client order ids', () => {
  it('a repeat with the same parameters creates nothing and names the first order', () => {
    const s = given(...WORLD);
    s.when(order(ALICE, 'BUY', 99, 5, 'o1', { cid: 'my-1' })).then(submitted(ALICE, 'BUY', 99, 5, 'o1', { cid: 'my-1' }, { remaining: 5, status: 'open' }));
    const before = stateHash(s.exchange.state);
    const seq = s.exchange.seq;
    let caught: unknown;
    try {
      s.exchange.execute({ ...order(ALICE, 'BUY', 99, 5, 'o2', { cid: 'my-1' }), time: at(9_000_000) });
    } catch (err) {
      caught = err;
    }
    expect(caught).to.be.instanceOf(DuplicateSubmission);
    expect((caught as DuplicateSubmission).orderId).to.equal('o1');
    expect(s.exchange.seq).to.equal(seq);
    expect(stateHash(s.exchange.state)).to.equal(before);
  });

  it('is recognized before any other check, even once trading stopped or the order filled', () => {
    const s = given(...WORLD, orderRested('m', BOB, 'SELL', 99, 5));
    s.when(order(ALICE, 'BUY', 99, 5, 'o1', { cid: 'x' })).then(submitted(ALICE, 'BUY', 99, 5, 'o1', { cid: 'x' }, { fills: [fill(0, 'm', BOB, 99, 5, 0)], remaining: 0, status: 'filled' }));
    s.exchange.execute({ type: 'StopTrading', time: at(8_000_000) });
    expect(() => s.exchange.execute({ ...order(ALICE, 'BUY', 99, 5, 'o2', { cid: 'x' }), time: at(9_000_000) })).to.throw(DuplicateSubmission);
  });

  it('the same id with other parameters: 409 duplicate_client_order_id', () => {
    const s = given(...WORLD, orderRested('m', BOB, 'SELL', 120, 5));
    s.when(order(ALICE, 'BUY', 99, 5, 'o1', { cid: 'x' })).then(submitted(ALICE, 'BUY', 99, 5, 'o1', { cid: 'x' }, { remaining: 5, status: 'open' }));
    for (const other of [order(ALICE, 'BUY', 98, 5, 'o2', { cid: 'x' }), order(ALICE, 'SELL', 99, 5, 'o2', { cid: 'x' }), order(ALICE, 'BUY', 99, 4, 'o2', { cid: 'x' }), order(ALICE, 'BUY', 99, 5, 'o2', { cid: 'x', tif: 'IOC' }), order(ALICE, 'BUY', 99, 5, 'o2', { cid: 'x', stp: 'CANCEL_BOTH' }), order(ALICE, 'BUY', null, 5, 'o2', { cid: 'x', type: 'MARKET' })]) {
      expect(() => s.exchange.execute({ ...other, time: at(9_000_000) }), JSON.stringify(other)).to.throw('client_order_id already used');
    }
  });

  it('is per trader, and free again after a reset', () => {
    const s = given(...WORLD, orderRested('m', BOB, 'SELL', 120, 5));
    s.exchange.execute({ ...order(ALICE, 'BUY', 99, 5, 'o1', { cid: 'x' }), time: at(2_000_000) });
    s.exchange.execute({ ...order(BOB, 'BUY', 98, 5, 'o2', { cid: 'x' }), time: at(2_000_001) });
    s.exchange.execute({ type: 'ResetTrading', time: at(2_000_002) });
    const e = s.exchange.execute({ ...order(ALICE, 'BUY', 90, 1, 'o3', { cid: 'x' }), time: at(2_000_003) });
    expect(e.type).to.equal('OrderSubmitted');
    expect(s.exchange.state.books.byClientId(ALICE, 'x')?.id).to.equal('o3');
  });

  it('amend and cancel by client order id, among the caller\'s own orders only', () => {
    const mine = submitted(ALICE, 'BUY', 99, 5, 'o1', { cid: 'a' }, { remaining: 5, status: 'open' });
    given(...WORLD, mine)
      .when({ type: 'AmendOrder', trader_id: ALICE, client_order_id: 'a', remaining: 2 })
      .then({ type: 'OrderAmended', data: { order_id: 'o1', trader_id: ALICE, market: BTC, side: 'BUY', price: 99, previous_remaining: 5, remaining: 2 } });
    given(...WORLD, mine).when({ type: 'CancelOrder', trader_id: BOB, client_order_id: 'a' }).thenRejects('order_not_found');
    given(...WORLD, mine).when({ type: 'AmendOrder', trader_id: BOB, client_order_id: 'a', remaining: 1 }).thenRejects('order_not_found');
    given(...WORLD, mine)
      .when({ type: 'CancelOrder', trader_id: ALICE, client_order_id: 'a' })
      .then({ type: 'OrderCanceled', data: { order_id: 'o1', trader_id: ALICE, market: BTC, side: 'BUY', price: 99, remaining: 5 } });
    // A client order id of an order that no longer rests: 404, never 403.
    given(...WORLD, mine, { type: 'OrderCanceled', data: { order_id: 'o1', trader_id: ALICE, market: BTC, side: 'BUY', price: 99, remaining: 5 } })
      .when({ type: 'CancelOrder', trader_id: ALICE, client_order_id: 'a' })
      .thenRejects('order_not_found');
  });
});

describe('core: cancel-all', () => {
  const OPEN = [...WORLD, marketUpserted(ETH), orderRested('e1', ALICE, 'BUY', 50, 1, ETH), orderRested('b1', ALICE, 'BUY', 90, 2), orderRested('x', BOB, 'BUY', 91, 1), orderRested('b2', ALICE, 'SELL', 120, 3)];

  it('cancels every open order of the trader in one event, oldest first', () => {
    const s = given(...OPEN);
    s.when({ type: 'CancelAllOrders', trader_id: ALICE, market: null, reason: 'request' }).then({
      type: 'OrdersCanceled',
      data: {
        trader_id: ALICE,
        market: null,
        reason: 'request',
        orders: [
          { order_id: 'e1', trader_id: ALICE, market: ETH, side: 'BUY', price: 50, remaining: 1 },
          { order_id: 'b1', trader_id: ALICE, market: BTC, side: 'BUY', price: 90, remaining: 2 },
          { order_id: 'b2', trader_id: ALICE, market: BTC, side: 'SELL', price: 120, remaining: 3 },
        ],
      },
    });
    expect(s.exchange.state.books.openOrders(ALICE)).to.deep.equal([]);
    expect(s.exchange.state.books.order('x')?.remaining).to.equal(1);
  });

  it('limited to one market; nothing open is an event with an empty list', () => {
    given(...OPEN)
      .when({ type: 'CancelAllOrders', trader_id: ALICE, market: ETH, reason: 'request' })
      .then({ type: 'OrdersCanceled', data: { trader_id: ALICE, market: ETH, reason: 'request', orders: [{ order_id: 'e1', trader_id: ALICE, market: ETH, side: 'BUY', price: 50, remaining: 1 }] } });
    given(...WORLD).when({ type: 'CancelAllOrders', trader_id: ALICE, market: null, reason: 'disconnect' }).then({ type: 'OrdersCanceled', data: { trader_id: ALICE, market: null, reason: 'disconnect', orders: [] } });
    // A disconnect over the trader's budget (only_if_open): nothing open is no event; something open is
    // canceled as ever.
    given(...WORLD).when({ type: 'CancelAllOrders', trader_id: ALICE, market: null, reason: 'disconnect', only_if_open: true }).thenRejects('order_not_found', 'no open orders to cancel');
    given(...OPEN)
      .when({ type: 'CancelAllOrders', trader_id: ALICE, market: ETH, reason: 'disconnect', only_if_open: true })
      .then({ type: 'OrdersCanceled', data: { trader_id: ALICE, market: ETH, reason: 'disconnect', orders: [{ order_id: 'e1', trader_id: ALICE, market: ETH, side: 'BUY', price: 50, remaining: 1 }] } });
  });

  it('works while trading is stopped and the market disabled', () => {
    given(...OPEN, { type: 'TradingStopped', data: {} }, { type: 'MarketPatched', data: { market_id: BTC, changes: { enabled: false } } })
      .when({ type: 'CancelAllOrders', trader_id: BOB, market: BTC, reason: 'request' })
      .then({ type: 'OrdersCanceled', data: { trader_id: BOB, market: BTC, reason: 'request', orders: [{ order_id: 'x', trader_id: BOB, market: BTC, side: 'BUY', price: 91, remaining: 1 }] } });
  });
});
