import { expect } from 'chai';
import { fillId } from '../../src/commands/fill-ids.ts';
import type { L3Delta } from '../../src/projections/market-data.ts';
import type { PrivateEvent } from '../../src/projections/private-feed.ts';
import { submitReply } from '../../src/projections/order-replies.ts';
import { at, given } from './dsl.ts';
import { ALICE, BOB, BTC, orderRested, SEED, submit, WORLD } from './fixtures.ts';

function record(s: ReturnType<typeof given>): { deltas: L3Delta[]; privates: PrivateEvent[] } {
  const deltas: L3Delta[] = [];
  const privates: PrivateEvent[] = [];
  s.exchange.state.marketData.deltas$.subscribe((d) => deltas.push(d));
  s.exchange.state.privateFeed.events$.subscribe((p) => privates.push(p));
  return { deltas, privates };
}

describe('core: market-data and private feeds', () => {
  it('a crossing order makes one delta: per execution the maker change then the trade, then the rest', () => {
    const s = given(...WORLD, orderRested('m1', BOB, 'SELL', 100, 2), orderRested('m2', BOB, 'SELL', 101, 5));
    const { deltas, privates } = record(s);
    const before = s.exchange.state.marketData.sequence(BTC);
    expect(before).to.equal(2);
    s.when(submit(ALICE, 'BUY', 101, 9, 't')).then({
      type: 'OrderSubmitted',
      data: {
        order: { id: 't', trader_id: ALICE, market: BTC, side: 'BUY', price: 101, quantity: 9 },
        fills: [
          { fill_id: fillId(SEED, 0), maker_order_id: 'm1', maker_trader_id: BOB, price: 100, quantity: 2, maker_remaining: 0 },
          { fill_id: fillId(SEED, 1), maker_order_id: 'm2', maker_trader_id: BOB, price: 101, quantity: 5, maker_remaining: 0 },
        ],
        remaining: 2,
      },
    });
    expect(deltas).to.have.length(1);
    const d = deltas[0] as L3Delta;
    expect([d.type, d.channel, d.market, d.sequence]).to.deep.equal(['delta', 'l3', BTC, 3]);
    expect(d.events.map((e) => e.kind)).to.deep.equal(['order_removed', 'trade', 'order_removed', 'trade', 'order_added']);
    expect(d.events[0]).to.deep.equal({ kind: 'order_removed', order_id: 'm1', side: 'SELL', price: 100 });
    expect(d.events[1]).to.deep.equal({ kind: 'trade', maker_order_id: 'm1', taker_order_id: 't', price: 100, quantity: 2 });
    expect(d.events[4]).to.deep.include({ kind: 'order_added' });

    // Private: per execution the fill to taker and maker and the maker's state, then the taker's state.
    expect(privates.map((p) => `${p.trader_id === ALICE ? 'alice' : 'bob'}:${p.type}${p.type === 'order_state' ? ':' + p.status : ''}:${p.user_sequence}`)).to.deep.equal([
      'alice:fill:1',
      'bob:fill:3',
      'bob:order_state:filled:4',
      'alice:fill:2',
      'bob:fill:5',
      'bob:order_state:filled:6',
      'alice:order_state:open:3',
    ]);
  });

  it('a fill message, the fill history and the submit reply show the same fill, field for field', () => {
    const s = given(...WORLD, orderRested('m1', BOB, 'SELL', 100, 2), orderRested('m2', BOB, 'SELL', 101, 5));
    const { privates } = record(s);
    const event = s.exchange.execute({ ...submit(ALICE, 'BUY', 101, 9, 't'), time: at(9_000_000) });
    if (event.type !== 'OrderSubmitted') throw new Error(event.type);
    const expected = event.data.fills.map((f) => ({ fill_id: f.fill_id, market: BTC, maker_order_id: f.maker_order_id, taker_order_id: 't', price: f.price, quantity: f.quantity, occurred_at: event.time, fee: 0, liquidity: 'taker' }));
    const sent = privates.flatMap((p) => (p.type === 'fill' && p.trader_id === ALICE ? [p.fill] : []));
    expect(sent).to.deep.equal(expected);
    expect(s.history.fills.of(ALICE)).to.deep.equal(expected);
    expect(submitReply(s.exchange.state, event).fills).to.deep.equal(expected);
    // The maker sees each fill as its maker, in its messages and its history alike.
    const asMaker = expected.map((f) => ({ ...f, liquidity: 'maker' }));
    expect(privates.flatMap((p) => (p.type === 'fill' && p.trader_id === BOB ? [p.fill] : []))).to.deep.equal(asMaker);
    expect(s.history.fills.of(BOB)).to.deep.equal(asMaker);
    // The objects are the history's own; once a later submission has filled, a reply to this one is
    // built again rather than taken from the history, with the same fields.
    expect(sent[0]).to.equal(s.history.fills.listOf(ALICE)[0]);
    s.exchange.execute({ ...submit(BOB, 'SELL', 101, 1, 'later'), time: at(9_000_001) });
    expect(s.exchange.state.fills.viewOf(event, 0)).to.not.equal(sent[0]);
    expect(submitReply(s.exchange.state, event).fills).to.deep.equal(expected);
  });

  it('a partial fill of a maker is order_updated and its state stays open', () => {
    const s = given(...WORLD, orderRested('m1', BOB, 'SELL', 100, 5));
    const { deltas, privates } = record(s);
    s.exchange.execute({ ...submit(ALICE, 'BUY', 100, 2, 't'), time: at(9_000_000) });
    expect(deltas[0]?.events[0]).to.deep.include({ kind: 'order_updated' });
    const makerState = privates.find((p) => p.type === 'order_state' && p.trader_id === BOB);
    expect(makerState).to.deep.include({ status: 'open' });
    const takerState = privates.find((p) => p.type === 'order_state' && p.trader_id === ALICE);
    expect(takerState).to.deep.include({ status: 'filled' });
  });

  it('cancel is order_removed in the feed and a canceled state carrying the remaining it had', () => {
    const s = given(...WORLD, orderRested('o', ALICE, 'BUY', 100, 5));
    const { deltas, privates } = record(s);
    s.exchange.execute({ type: 'CancelOrder', trader_id: ALICE, order_id: 'o', time: at(9_000_000) });
    expect(deltas[0]?.events).to.deep.equal([{ kind: 'order_removed', order_id: 'o', side: 'BUY', price: 100 }]);
    expect(privates[0]).to.deep.include({ type: 'order_state', status: 'canceled' });
    expect(privates[0]?.type === 'order_state' && privates[0].order.remaining).to.equal(5);
  });

  it('a reset removes every resting order through ordinary deltas, one per market', () => {
    const s = given(...WORLD, orderRested('a', ALICE, 'BUY', 100, 5), orderRested('b', BOB, 'SELL', 110, 5));
    const { deltas, privates } = record(s);
    s.exchange.execute({ type: 'ResetTrading', time: at(9_000_000) });
    expect(deltas).to.have.length(1);
    expect(deltas[0]?.events.map((e) => e.kind)).to.deep.equal(['order_removed', 'order_removed']);
    expect(privates).to.deep.equal([]);
  });

  it('replays recent deltas after a sequence from the ring, or says it cannot', () => {
    const s = given(...WORLD, orderRested('a', ALICE, 'BUY', 100, 5), orderRested('b', BOB, 'SELL', 110, 5), orderRested('c', BOB, 'SELL', 111, 5));
    const feed = s.exchange.state.marketData;
    expect(feed.deltasAfter(BTC, 1)?.map((d) => d.sequence)).to.deep.equal([2, 3]);
    expect(feed.deltasAfter(BTC, 3)).to.deep.equal([]);
    expect(feed.deltasAfter(BTC, 4)).to.equal(null);
    const snapshot = feed.snapshot(BTC);
    expect(snapshot.sequence).to.equal(3);
    expect(snapshot.bids.map((o) => o.order_id)).to.deep.equal(['a']);
    expect(snapshot.asks.map((o) => o.order_id)).to.deep.equal(['b', 'c']);
    expect(feed.snapshot('NONE-USD')).to.deep.include({ sequence: 0, bids: [], asks: [] });
  });
});

describe('core: a projection that fails', () => {
  it('fails the fold at once, naming the seq, and refuses every later event', () => {
    const s = given(...WORLD);
    // An event no decide would make: a cancel of an order that never rested.
    const bad = { seq: s.exchange.seq + 1, time: at(8_000_000), type: 'OrderCanceled', data: { order_id: 'ghost', trader_id: ALICE, market: BTC, side: 'BUY', price: 1, remaining: 1 } } as const;
    expect(() => s.exchange.fold(bad)).to.throw(/applying OrderCanceled at seq 4 failed: books: event refers to order ghost/);
    const next = { seq: bad.seq + 1, time: at(8_000_001), type: 'TradingStopped', data: {} } as const;
    expect(() => s.exchange.fold(next)).to.throw(/inconsistent since seq 4/);
  });
});
