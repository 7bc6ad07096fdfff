// The order of frames: a command's ack before everything it caused, and a crossing order's fill and
// order states reaching both traders.
import { expect } from 'chai';
import { ExchangeFixture, rid, type Trader } from './support/exchange-fixture.ts';
import type { Frame, WsTestClient } from './support/ws-test-client.ts';

function indexOf(client: WsTestClient, match: (f: Frame) => boolean): number {
  const i = client.history.findIndex(match);
  expect(i, 'frame present').to.be.at.least(0);
  return i;
}

describe('ws ordering', () => {
  let fx: ExchangeFixture;
  let alice: Trader;
  let bob: Trader;

  before(async () => {
    fx = await ExchangeFixture.start();
    alice = await fx.trader('alice');
    bob = await fx.trader('bob');
    await fx.market('BTC-USD');
  });
  after(() => fx.stop());

  it('sends the ack before the delta and order_state the command caused', async () => {
    const c = await fx.clientAs(alice);
    await ExchangeFixture.subscribe(c, 'BTC-USD');
    const ack = await c.request({ op: 'submit_order', request_id: 'first', market: 'BTC-USD', side: 'BUY', price: 90, quantity: 3 });
    const id = (ack['order'] as { id: string }).id;
    await c.nextType('order_state');
    const ackAt = indexOf(c, (f) => f['request_id'] === 'first');
    const deltaAt = indexOf(c, (f) => f.type === 'delta' && JSON.stringify(f).includes(id));
    const stateAt = indexOf(c, (f) => f.type === 'order_state' && (f['order'] as { id: string }).id === id);
    expect(ackAt).to.be.below(deltaAt);
    expect(ackAt).to.be.below(stateAt);
    await c.request({ op: 'cancel_order', request_id: rid(), order_id: id });
  });

  it('delivers a crossing order\'s fill and order_state to maker and taker, after the taker\'s ack', async () => {
    const maker = await fx.clientAs(alice);
    const taker = await fx.clientAs(bob);
    const watcher = await fx.client();
    await ExchangeFixture.subscribe(watcher, 'BTC-USD');
    const makerAck = await maker.request({ op: 'submit_order', request_id: rid(), market: 'BTC-USD', side: 'SELL', price: 100, quantity: 2 });
    const makerId = (makerAck['order'] as { id: string }).id;
    const makerOpen = await maker.nextType('order_state');
    const takerAck = await taker.request({ op: 'submit_order', request_id: 'cross', market: 'BTC-USD', side: 'BUY', price: 101, quantity: 5 });
    const takerId = (takerAck['order'] as { id: string }).id;

    const takerFill = await taker.nextType('fill');
    const takerState = await taker.nextType('order_state');
    const makerFill = await maker.nextType('fill');
    const makerState = await maker.nextType('order_state');

    const fill = { fill_id: (takerAck['fills'] as { fill_id: string }[])[0]?.fill_id, market: 'BTC-USD', maker_order_id: makerId, taker_order_id: takerId, price: 100, quantity: 2, occurred_at: (takerAck['order'] as { created_at: string }).created_at };
    expect(takerFill['fill']).to.deep.equal({ ...fill, fee: 0, liquidity: 'taker' });
    expect(makerFill['fill']).to.deep.equal({ ...fill, fee: 0, liquidity: 'maker' });
    expect(takerState).to.deep.include({ status: 'open', order: takerAck['order'] });
    expect(makerState['status']).to.equal('filled');
    expect(makerState['order']).to.include({ id: makerId, remaining: 0 });
    // Per trader, user_sequence has no gap.
    expect(makerFill['user_sequence']).to.equal((makerOpen['user_sequence'] as number) + 1);
    expect(makerState['user_sequence']).to.equal((makerFill['user_sequence'] as number) + 1);
    expect(takerState['user_sequence']).to.equal((takerFill['user_sequence'] as number) + 1);
    expect(indexOf(taker, (f) => f['request_id'] === 'cross')).to.be.below(indexOf(taker, (f) => f.type === 'fill'));

    // One delta carries the whole crossing: the maker leaving, the trade, then the taker's rest.
    const delta = await watcher.next((f) => f.type === 'delta' && JSON.stringify(f).includes(takerId), 'crossing delta');
    expect((delta['events'] as { kind: string }[]).map((e) => e.kind)).to.deep.equal(['order_removed', 'trade', 'order_added']);
    expect((delta['events'] as object[])[1]).to.deep.equal({ kind: 'trade', maker_order_id: makerId, taker_order_id: takerId, price: 100, quantity: 2 });
    await taker.request({ op: 'cancel_order', request_id: rid(), order_id: takerId });
  });
});
