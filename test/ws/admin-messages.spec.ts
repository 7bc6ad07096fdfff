// Operator messages and resets over WebSocket: targeted vs broadcast, settlement announcements, and
// the account resync after a reset (with the book emptied by ordinary deltas).
import { expect } from 'chai';
import { ExchangeFixture, rid, type Trader } from './support/exchange-fixture.ts';
import { sleep } from './support/ws-test-client.ts';

describe('ws operator messages', () => {
  let fx: ExchangeFixture;
  let alice: Trader;
  let bob: Trader;
  before(async () => {
    fx = await ExchangeFixture.start();
    alice = await fx.trader('alice');
    bob = await fx.trader('bob');
    await fx.market('BTC-USD');
    await fx.market('ETH-USD');
  });
  after(() => fx.stop());

  it('sends a targeted message only to that trader\'s connections and a broadcast to every client', async () => {
    const a1 = await fx.clientAs(alice);
    const a2 = await fx.clientAs(alice);
    const b = await fx.clientAs(bob);
    const spectator = await fx.client();
    const entry = await fx.admin('POST', '/api/v1/admin/messages', { target_username: 'alice', level: 'warning', title: 'heads up', body: 'for alice only' });
    for (const c of [a1, a2]) expect(await c.nextType('admin_message')).to.deep.equal({ type: 'admin_message', message: entry });
    expect((entry as { target_trader_id: string }).target_trader_id).to.equal(alice.trader_id);

    const all = await fx.admin('POST', '/api/v1/admin/messages', { level: 'info', body: 'to everyone' });
    for (const c of [a1, a2, b, spectator]) expect(await c.nextType('admin_message')).to.deep.equal({ type: 'admin_message', message: all });
    // Neither bob nor the spectator got the targeted one.
    for (const c of [b, spectator]) expect(c.history.filter((f) => f.type === 'admin_message')).to.have.length(1);
  });

  it('broadcasts a settlement announcement and removes the settled book\'s orders as deltas', async () => {
    const trader = await fx.clientAs(alice);
    const spectator = await fx.client();
    await ExchangeFixture.subscribe(spectator, 'ETH-USD');
    const placed = await trader.request({ op: 'submit_order', request_id: rid(), market: 'ETH-USD', side: 'BUY', price: 9, quantity: 1 });
    await spectator.nextType('delta');
    await fx.admin('POST', '/api/v1/admin/markets/ETH-USD/settle', { settlement_price: 10, announcement: 'ETH round over' });
    const msg = await spectator.nextType('admin_message');
    expect(msg['message']).to.include({ body: 'ETH round over', target_trader_id: null, target_username: null });
    const removal = await spectator.nextType('delta');
    expect(removal['events']).to.deep.equal([{ kind: 'order_removed', order_id: (placed['order'] as { id: string }).id, side: 'BUY', price: 9 }]);
    expect((await trader.next((f) => f.type === 'order_state' && f['status'] === 'canceled', 'settled order canceled'))['order']).to.include({ remaining: 1 });
  });

  it('sends the account resync to every client after a reset, and the book empties through deltas', async () => {
    const trader = await fx.clientAs(bob);
    const spectator = await fx.client();
    const watcher = await fx.client();
    await ExchangeFixture.subscribe(watcher, 'BTC-USD');
    await trader.request({ op: 'submit_order', request_id: rid(), market: 'BTC-USD', side: 'SELL', price: 200, quantity: 3 });
    await trader.request({ op: 'submit_order', request_id: rid(), market: 'BTC-USD', side: 'BUY', price: 150, quantity: 3 });
    await watcher.nextType('delta');
    await watcher.nextType('delta');
    await fx.admin('POST', '/api/v1/admin/users/reset');
    const resync = { type: 'resync_required', channel: 'account', market: null, expected_sequence: null, current_sequence: null, reason: 'admin reset all users' };
    for (const c of [trader, spectator, watcher]) expect(await c.nextType('resync_required')).to.deep.equal(resync);
    const cleared = await watcher.nextType('delta');
    expect((cleared['events'] as { kind: string }[]).map((e) => e.kind)).to.deep.equal(['order_removed', 'order_removed']);
    await sleep(20);
    // A reset is announced by the resync, not order by order.
    expect(trader.untaken('order_state').filter((f) => f['status'] === 'canceled')).to.deep.equal([]);
  });
});
