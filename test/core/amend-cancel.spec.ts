import { expect } from 'chai';
import { given } from './dsl.ts';
import { ALICE, BOB, BTC, marketUpserted, orderRested, WORLD } from './fixtures.ts';

const resting = [...WORLD, orderRested('o1', ALICE, 'BUY', 100, 10), orderRested('o2', BOB, 'BUY', 100, 4)];

describe('core: AmendOrder', () => {
  it('reduces remaining and keeps the queue place', () => {
    const s = given(...resting);
    s.when({ type: 'AmendOrder', trader_id: ALICE, order_id: 'o1', remaining: 3 }).then({
      type: 'OrderAmended',
      data: { order_id: 'o1', trader_id: ALICE, market: BTC, side: 'BUY', price: 100, previous_remaining: 10, remaining: 3 },
    });
    const level = s.exchange.state.books.book(BTC)?.bids.bestLevel;
    expect(level?.head?.id).to.equal('o1');
    expect(level?.total).to.equal(7);
    expect(s.exchange.state.books.exposure(ALICE, BTC)).to.deep.equal({ buy: 3, sell: 0 });
  });

  it('accepts the same remaining and changes nothing in the book', () => {
    const s = given(...resting);
    const deltas: unknown[] = [];
    s.exchange.state.marketData.deltas$.subscribe((d) => deltas.push(d));
    s.when({ type: 'AmendOrder', trader_id: ALICE, order_id: 'o1', remaining: 10 }).then({
      type: 'OrderAmended',
      data: { order_id: 'o1', trader_id: ALICE, market: BTC, side: 'BUY', price: 100, previous_remaining: 10, remaining: 10 },
    });
    expect(deltas).to.deep.equal([]);
  });

  it('is allowed while trading is stopped or the market disabled (it only reduces risk)', () => {
    given(...resting, { type: 'TradingStopped', data: {} }, marketUpserted(BTC, { enabled: false }))
      .when({ type: 'AmendOrder', trader_id: ALICE, order_id: 'o1', remaining: 1 })
      .then({ type: 'OrderAmended', data: { order_id: 'o1', trader_id: ALICE, market: BTC, side: 'BUY', price: 100, previous_remaining: 10, remaining: 1 } });
  });

  it('rejects remaining 0, negative or fractional with invalid_remaining', () => {
    for (const remaining of [0, -1, 2.5, 2 ** 53]) given(...resting).when({ type: 'AmendOrder', trader_id: ALICE, order_id: 'o1', remaining }).thenRejects('invalid_remaining');
  });

  it('rejects an increase with invalid_amend', () => {
    given(...resting).when({ type: 'AmendOrder', trader_id: ALICE, order_id: 'o1', remaining: 11 }).thenRejects('invalid_amend');
  });

  it('rejects an unknown or no longer open order with order_not_found (404)', () => {
    const err = given(...resting).when({ type: 'AmendOrder', trader_id: ALICE, order_id: 'nope', remaining: 1 }).thenRejects('order_not_found');
    expect(err.status).to.equal(404);
    given(...resting, { type: 'OrderCanceled', data: { order_id: 'o1', trader_id: ALICE, market: BTC, side: 'BUY', price: 100, remaining: 10 } })
      .when({ type: 'AmendOrder', trader_id: ALICE, order_id: 'o1', remaining: 1 })
      .thenRejects('order_not_found');
  });

  it("rejects another trader's order with order_not_owned (403), before checking the amount", () => {
    const err = given(...resting).when({ type: 'AmendOrder', trader_id: BOB, order_id: 'o1', remaining: 50 }).thenRejects('order_not_owned');
    expect(err.status).to.equal(403);
  });
});

describe('core: CancelOrder', () => {
  it('removes the order from the book and the indexes', () => {
    const s = given(...resting);
    s.when({ type: 'CancelOrder', trader_id: ALICE, order_id: 'o1' }).then({
      type: 'OrderCanceled',
      data: { order_id: 'o1', trader_id: ALICE, market: BTC, side: 'BUY', price: 100, remaining: 10 },
    });
    expect(s.exchange.state.books.order('o1')).to.equal(undefined);
    expect(s.exchange.state.books.openOrders(ALICE)).to.deep.equal([]);
    expect(s.exchange.state.books.book(BTC)?.bids.bestLevel?.head?.id).to.equal('o2');
  });

  it('is allowed while trading is stopped', () => {
    given(...resting, { type: 'TradingStopped', data: {} })
      .when({ type: 'CancelOrder', trader_id: ALICE, order_id: 'o1' })
      .then({ type: 'OrderCanceled', data: { order_id: 'o1', trader_id: ALICE, market: BTC, side: 'BUY', price: 100, remaining: 10 } });
  });

  it('rejects unknown orders (order_not_found) and foreign ones (order_not_owned)', () => {
    given(...resting).when({ type: 'CancelOrder', trader_id: ALICE, order_id: 'missing' }).thenRejects('order_not_found');
    given(...resting).when({ type: 'CancelOrder', trader_id: ALICE, order_id: 'o2' }).thenRejects('order_not_owned');
  });
});
