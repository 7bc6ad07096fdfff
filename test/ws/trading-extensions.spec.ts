// trading-extensions.md over WebSocket: the new order fields in submit_order and its ack, idempotent
// client order ids (also racing REST), cancel and amend by client order id, cancel_all, the public
// `trades` channel, and cancel-on-disconnect.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { WsGateway } from '../../src/server/ws/gateway.ts';
import { ExchangeFixture, rid, type Trader } from './support/exchange-fixture.ts';
import { sleep, WsTestClient } from './support/ws-test-client.ts';

async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 3000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

describe('ws trading extensions', () => {
  let fx: ExchangeFixture;
  let alice: Trader;
  let bob: Trader;

  before(async () => {
    fx = await ExchangeFixture.start({ PER_USER_REQUESTS_PER_SECOND: '100000' });
    for (const m of ['BTC-USD', 'TRD-USD', 'CID-USD']) await fx.market(m);
    alice = await fx.trader('alice');
    bob = await fx.trader('bob');
  });
  after(() => fx.stop());

  it('submit_order takes type, time_in_force, self_trade_prevention and client_order_id; the ack shows them', async () => {
    const a = await fx.clientAs(alice);
    const b = await fx.clientAs(bob);
    await b.request({ op: 'submit_order', request_id: rid(), market: 'BTC-USD', side: 'SELL', price: 100, quantity: 2 });
    const ack = await a.request({ op: 'submit_order', request_id: 'm1', market: 'BTC-USD', side: 'BUY', type: 'MARKET', quantity: 3, client_order_id: 'ws-1', self_trade_prevention: 'CANCEL_TAKER' });
    expect(ack).to.include({ type: 'ack', op: 'submit_order', request_id: 'm1', resting: false });
    expect(ack['order']).to.include({ price: null, type: 'MARKET', time_in_force: 'IOC', self_trade_prevention: 'CANCEL_TAKER', client_order_id: 'ws-1', status: 'canceled', remaining: 1, average_fill_price: 100 });
    const state = await a.next((f) => f.type === 'order_state' && (f['order'] as { client_order_id: string }).client_order_id === 'ws-1', 'order_state');
    expect(state['status']).to.equal('canceled');
  });

  it('a repeated client_order_id is acked with duplicate: true and the first order; a conflicting one is rejected', async () => {
    const a = await fx.clientAs(alice);
    const first = await a.request({ op: 'submit_order', request_id: rid(), market: 'CID-USD', side: 'BUY', price: 90, quantity: 2, client_order_id: 'dup' });
    const again = await a.request({ op: 'submit_order', request_id: 'again', market: 'CID-USD', side: 'BUY', price: 90, quantity: 2, client_order_id: 'dup' });
    expect(again).to.include({ type: 'ack', op: 'submit_order', request_id: 'again', duplicate: true, resting: true });
    expect((again['order'] as { id: string }).id).to.equal((first['order'] as { id: string }).id);
    const conflict = await a.request({ op: 'submit_order', request_id: 'conflict', market: 'CID-USD', side: 'BUY', price: 91, quantity: 2, client_order_id: 'dup' });
    // rate_limit_remaining: the budget extension (docs/websocket.md, "Limits") on every ack and reject.
    expect(conflict).to.deep.equal({ type: 'reject', op: 'submit_order', request_id: 'conflict', code: 'duplicate_client_order_id', message: 'client_order_id already used', rate_limit_remaining: conflict['rate_limit_remaining'] });
    expect(conflict['rate_limit_remaining']).to.be.a('number');
  });

  it('the same client_order_id on two connections and over REST at once yields exactly one order', async () => {
    const a1 = await fx.clientAs(alice);
    const a2 = await fx.clientAs(alice);
    const body = { market: 'CID-USD', side: 'SELL', price: 150, quantity: 1, client_order_id: 'race-3' };
    const rest = () => fetch(`${fx.server.url}/api/v1/orders`, { method: 'POST', headers: { 'x-api-key': alice.api_key, 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.json() as Promise<{ order: { id: string } }>);
    const results = await Promise.all([
      a1.request({ op: 'submit_order', request_id: 'x1', ...body }),
      a2.request({ op: 'submit_order', request_id: 'x2', ...body }),
      rest(),
      a1.request({ op: 'submit_order', request_id: 'x3', ...body }),
      rest(),
      a2.request({ op: 'submit_order', request_id: 'x4', ...body }),
    ]);
    const ids = new Set(results.map((r) => (r['order'] as { id: string }).id));
    expect(ids.size).to.equal(1);
    const open = (await fx.openOrders(alice)).filter((o) => (o as { client_order_id?: string }).client_order_id === 'race-3');
    expect(open).to.have.length(1);
  });

  it('cancel_order and amend_order by client_order_id; cancel_all acks the list', async () => {
    const a = await fx.clientAs(alice);
    await a.request({ op: 'submit_order', request_id: rid(), market: 'CID-USD', side: 'SELL', price: 300, quantity: 5, client_order_id: 'c-1' });
    const amended = await a.request({ op: 'amend_order', request_id: rid(), client_order_id: 'c-1', remaining: 2 });
    expect(amended['order']).to.include({ client_order_id: 'c-1', remaining: 2 });
    const canceled = await a.request({ op: 'cancel_order', request_id: rid(), client_order_id: 'c-1' });
    expect(canceled['order']).to.include({ client_order_id: 'c-1', status: 'canceled' });
    const b = await fx.clientAs(bob);
    const miss = await b.request({ op: 'cancel_order', request_id: 'miss', client_order_id: 'dup' });
    expect(miss).to.include({ type: 'reject', code: 'order_not_found' });
    const both = await a.request({ op: 'cancel_order', request_id: 'both', order_id: 'x', client_order_id: 'y' });
    expect(both).to.include({ type: 'error', code: 'invalid_message' });
    await a.request({ op: 'submit_order', request_id: rid(), market: 'CID-USD', side: 'SELL', price: 400, quantity: 1 });
    const all = await a.request({ op: 'cancel_all', request_id: 'all', market: null });
    expect(all).to.include({ type: 'ack', op: 'cancel_all', request_id: 'all' });
    expect((all['canceled'] as unknown[]).length).to.be.greaterThan(0);
    expect(await fx.openOrders(alice)).to.deep.equal([]);
    const none = await a.request({ op: 'cancel_all', request_id: 'none' });
    expect(none['canceled']).to.deep.equal([]);
  });

  it('the public trades channel delivers each execution, newest data only after subscribing; other channels stay unsupported', async () => {
    const watcher = await fx.client();
    watcher.send({ op: 'subscribe', channel: 'trades', market: 'TRD-USD' });
    expect(await watcher.nextType('subscribed')).to.include({ channel: 'trades', market: 'TRD-USD' });
    const a = await fx.clientAs(alice);
    const b = await fx.clientAs(bob);
    await a.request({ op: 'submit_order', request_id: rid(), market: 'TRD-USD', side: 'SELL', price: 10, quantity: 1 });
    await a.request({ op: 'submit_order', request_id: rid(), market: 'TRD-USD', side: 'SELL', price: 11, quantity: 1 });
    await b.request({ op: 'submit_order', request_id: rid(), market: 'TRD-USD', side: 'BUY', price: 11, quantity: 2 });
    const t1 = await watcher.nextType('trade');
    const t2 = await watcher.nextType('trade');
    expect(t1['market']).to.equal('TRD-USD');
    expect(t1['trade']).to.include({ price: 10, quantity: 1, taker_side: 'BUY' });
    expect(t2['trade']).to.include({ price: 11, quantity: 1, taker_side: 'BUY' });
    expect(Object.keys(t1['trade'] as object)).to.deep.equal(['trade_id', 'price', 'quantity', 'taker_side', 'occurred_at', 'seq']);
    const tape = (await (await fetch(`${fx.server.url}/api/v1/markets/TRD-USD/trades`)).json()) as { trades: unknown[] };
    expect(tape.trades).to.deep.equal([t2['trade'], t1['trade']]);
    watcher.send({ op: 'unsubscribe', channel: 'trades', market: 'TRD-USD' });
    expect(await watcher.nextType('unsubscribed')).to.include({ channel: 'trades' });
    watcher.send({ op: 'subscribe', channel: 'candles', market: 'TRD-USD' });
    expect(await watcher.nextType('error')).to.include({ code: 'unsupported_channel' });
  });

  describe('cancel on disconnect', () => {
    let http: Server;
    let gateway: WsGateway;
    let url: string;

    before(async () => {
      // A second gateway over the same service, with a short heartbeat, to see dead peers found quickly.
      http = createServer((_req, res) => res.writeHead(404).end());
      gateway = new WsGateway(fx.server.context, http, { heartbeatIntervalMs: 100 });
      await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
      url = `ws://127.0.0.1:${(http.address() as AddressInfo).port}/ws`;
    });
    after(async () => {
      await gateway.close();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    });

    async function connect(trader: Trader, flag: boolean): Promise<WsTestClient> {
      const c = fx.track(await WsTestClient.open(url));
      c.send({ op: 'authenticate', api_key: trader.api_key, ...(flag ? { cancel_on_disconnect: true } : {}) });
      await c.nextType('authenticated');
      return c;
    }

    async function rest(trader: Trader, price: number): Promise<void> {
      const res = await fetch(`${fx.server.url}/api/v1/orders`, { method: 'POST', headers: { 'x-api-key': trader.api_key, 'content-type': 'application/json' }, body: JSON.stringify({ market: 'BTC-USD', side: 'BUY', price, quantity: 1 }) });
      expect(res.status).to.equal(201);
    }

    it('a flagged client whose socket is destroyed (no close frame) has its orders canceled, once', async () => {
      const carol = await fx.trader('carol');
      const c = await connect(carol, true);
      await rest(carol, 1);
      await rest(carol, 2);
      const before = fx.server.context.service.exchange.seq;
      c.ws.terminate();
      await waitFor(async () => (await fx.openOrders(carol)).length === 0, 'the orders to be canceled');
      await sleep(150);
      const events = fx.server.context.service.exchange.seq - before;
      expect(events, 'one cancel-all event').to.equal(1);
    });

    it('a flagged client that stops answering is found by the heartbeat and its orders canceled', async () => {
      const dave = await fx.trader('dave');
      const c = await connect(dave, true);
      await rest(dave, 3);
      // Network loss: the client stops reading, so it answers no ping; the server finds it gone.
      (c.ws as unknown as { _socket: { pause(): void } })._socket.pause();
      await waitFor(async () => (await fx.openOrders(dave)).length === 0, 'the heartbeat to find the peer gone', 2000);
    });

    it('a client without the flag keeps its orders; two flagged connections keep them until the second goes', async () => {
      const erin = await fx.trader('erin');
      const plain = await connect(erin, false);
      await rest(erin, 4);
      plain.ws.terminate();
      await sleep(300);
      expect(await fx.openOrders(erin)).to.have.length(1);
      const first = await connect(erin, true);
      const second = await connect(erin, true);
      first.ws.terminate();
      await sleep(300);
      expect(await fx.openOrders(erin), 'kept while the second connection is open').to.have.length(1);
      await second.close();
      await waitFor(async () => (await fx.openOrders(erin)).length === 0, 'the orders to be canceled');
    });
  });
});
