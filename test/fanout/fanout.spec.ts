// WS_FANOUT=process: the WebSocket connections live in a child process that folds the main process's
// published events. What only that design can get wrong: an ack forwarded between processes still
// precedes the events its command caused; a client's REST write is visible to its next authenticate or
// subscribe (the sync barrier); bad input stays in the child; the child's death is survived and
// repaired; /metrics shows the child's figures as they are now.
import { expect } from 'chai';
import { WebSocket } from 'ws';
import { ExchangeFixture, rid, type Trader } from '../ws/support/exchange-fixture.ts';
import { WsTestClient, type Frame } from '../ws/support/ws-test-client.ts';
import { ADMIN_TOKEN } from '../support/server.ts';
import { scrape, value } from '../support/metrics.ts';
import { isRunning, waitUntil } from './support/processes.ts';

interface OrderRef {
  readonly id: string;
}

async function restOrder(fx: ExchangeFixture, trader: Trader, side: 'BUY' | 'SELL', price: number, quantity = 1): Promise<OrderRef> {
  const res = await fetch(`${fx.server.url}/api/v1/orders`, {
    method: 'POST',
    headers: { 'x-api-key': trader.api_key, 'content-type': 'application/json' },
    body: JSON.stringify({ market: 'FAN-USD', side, price, quantity }),
  });
  expect(res.status).to.equal(201);
  return ((await res.json()) as { order: OrderRef }).order;
}

function bookIds(snapshot: Frame): string[] {
  return [...(snapshot['bids'] as { order_id: string }[]), ...(snapshot['asks'] as { order_id: string }[])].map((o) => o.order_id);
}

describe('ws fan-out process (WS_FANOUT=process)', function () {
  this.timeout(30_000);
  let fx: ExchangeFixture;

  before(async () => {
    fx = await ExchangeFixture.start({ WS_FANOUT: 'process', PER_USER_REQUESTS_PER_SECOND: '100000', WS_SNAPSHOTS_PER_SECOND: '100000', WS_MAX_SUBSCRIPTIONS: '1000' });
    await fx.market('FAN-USD');
  });
  after(() => fx.stop());

  it('runs its gateway in a child process of its own', () => {
    const pid = fx.server.fanout?.pid ?? null;
    expect(pid).to.be.a('number');
    expect(pid).to.not.equal(process.pid);
    expect(isRunning(pid as number)).to.equal(true);
  });

  it('an ack forwarded to the main process precedes every frame its command caused, under load', async () => {
    const maker = await fx.trader('fan-maker');
    const taker = await fx.trader('fan-taker');
    const loader = await fx.trader('fan-loader');
    const m = await fx.clientAs(maker);
    const t = await fx.clientAs(taker);
    t.send({ op: 'subscribe', channel: 'l3', market: 'FAN-USD' });
    await t.nextType('snapshot');
    const N = 150;
    const ids = (prefix: string) => Array.from({ length: N }, () => rid(prefix));
    const makerIds = ids('mk');
    for (const id of makerIds) m.send({ op: 'submit_order', request_id: id, market: 'FAN-USD', side: 'SELL', price: 200, quantity: 1 });
    await Promise.all(makerIds.map((id) => m.next((f) => f['request_id'] === id, id)));
    // The taker's orders each cross one maker order, pipelined, while REST orders of a third trader
    // keep the main process busy.
    const load = Promise.all(Array.from({ length: 100 }, (_, i) => restOrder(fx, loader, 'BUY', 10 + (i % 5))));
    const takerIds = ids('tk');
    for (const id of takerIds) t.send({ op: 'submit_order', request_id: id, market: 'FAN-USD', side: 'BUY', price: 200, quantity: 1 });
    const acks = await Promise.all(takerIds.map((id) => t.next((f) => f['request_id'] === id, id)));
    await load;
    expect(acks.map((a) => a.type)).to.deep.equal(Array(N).fill('ack'));
    // Every frame the taker got, in arrival order: its own order's state, fill and trade come after its ack.
    const lastId = ((acks.at(-1) as Frame)['order'] as OrderRef).id;
    await t.next((f) => f.type === 'delta' && JSON.stringify(f).includes(lastId), 'the last delta');
    const history = t.history;
    const ackAt = new Map<string, number>();
    history.forEach((f, i) => {
      if (f.type === 'ack') ackAt.set((f['order'] as OrderRef).id, i);
    });
    let checked = 0;
    history.forEach((f, i) => {
      let orderId: string | null = null;
      if (f.type === 'order_state') orderId = (f['order'] as OrderRef).id;
      else if (f.type === 'fill') orderId = (f['fill'] as { taker_order_id: string }).taker_order_id;
      else if (f.type === 'delta') orderId = ((f['events'] as { kind: string; taker_order_id?: string }[]).find((e) => e.kind === 'trade')?.taker_order_id ?? null);
      const at = orderId === null ? undefined : ackAt.get(orderId);
      if (at === undefined) return;
      expect(i, `${f.type} of ${orderId as string} after its ack`).to.be.above(at);
      checked++;
    });
    expect(checked).to.be.at.least(3 * N);
    // Replies kept the order of the requests.
    expect(history.filter((f) => f.type === 'ack').map((f) => f['request_id'])).to.deep.equal(takerIds);
  });

  it('read-your-writes: an order a REST call just placed is in the next snapshot; a trader just provisioned can authenticate at once', async () => {
    const alice = await fx.trader('fan-alice');
    const watcher = await fx.client();
    for (let i = 0; i < 40; i++) {
      const order = await restOrder(fx, alice, 'BUY', 50 + (i % 7));
      watcher.send({ op: 'subscribe', channel: 'l3', market: 'FAN-USD' });
      const snapshot = await watcher.nextType('snapshot');
      expect(bookIds(snapshot), `round ${i}`).to.include(order.id);
      watcher.send({ op: 'unsubscribe', channel: 'l3', market: 'FAN-USD' });
      await watcher.nextType('unsubscribed');
    }
    const session = await fx.client();
    for (let i = 0; i < 40; i++) {
      const trader = await fx.trader(`fan-new-${i}`);
      session.send({ op: 'authenticate', api_key: trader.api_key });
      expect(await session.next((f) => f.type === 'authenticated' || f.type === 'error', `round ${i}`)).to.deep.include({ type: 'authenticated', username: `fan-new-${i}` });
    }
    // And on a connection opened right after the REST answer.
    for (let i = 0; i < 5; i++) {
      const trader = await fx.trader(`fan-fresh-${i}`);
      const c = await fx.client();
      c.send({ op: 'authenticate', api_key: trader.api_key });
      expect((await c.next((f) => f.type === 'authenticated' || f.type === 'error')).type).to.equal('authenticated');
    }
  });

  it('answers bad input in the child: nothing of it reaches the main process', async () => {
    const c = await fx.client();
    const before = fx.server.fanout?.received ?? { trades: -1, syncs: -1 };
    c.send('not json');
    c.send({ op: 'fly' });
    c.send({ op: 'subscribe', channel: 'l1', market: 'FAN-USD' });
    c.send({ op: 'submit_order', request_id: 'anon', market: 'FAN-USD', side: 'BUY', price: 1, quantity: 1 });
    c.send({ op: 'submit_order', request_id: 'bad', market: 'FAN-USD', side: 'UP', price: 1, quantity: 1 });
    c.ws.send(Buffer.from([1, 2, 3]));
    c.send('x'.repeat(70 * 1024));
    expect(await c.request({ op: 'ping', request_id: 'after' })).to.include({ type: 'pong' });
    expect(c.take('error').map((f) => f['code'])).to.deep.equal(['invalid_message', 'invalid_message', 'unsupported_channel', 'invalid_message', 'invalid_message', 'invalid_message']);
    expect(c.take('reject').map((f) => f['code'])).to.deep.equal(['unauthenticated']);
    expect(fx.server.fanout?.received).to.deep.equal(before);
  });

  it('cancel on disconnect runs after the ops the child forwarded before the close (they were still waiting for admission)', async () => {
    const trader = await fx.trader('late-ops');
    const c = await fx.client();
    c.send({ op: 'authenticate', api_key: trader.api_key, cancel_on_disconnect: true });
    await c.nextType('authenticated');
    // Admission held (as persistence backpressure or durable acks hold it): the ops wait in main's chain.
    const release = fx.server.context.service.holdAdmission();
    try {
      for (let i = 0; i < 5; i++) c.send({ op: 'submit_order', request_id: `late${i}`, market: 'FAN-USD', side: 'BUY', price: 10 + i, quantity: 1 });
      const before = fx.server.fanout?.received.trades ?? 0;
      await waitUntil('the ops to reach main', () => (fx.server.fanout?.received.trades ?? 0) >= before + 5);
      c.ws.terminate();
      await new Promise((resolve) => setTimeout(resolve, 300));
    } finally {
      release();
    }
    // All five placed, then all five canceled by the disconnect (before the fix: four left open).
    const mine = () => [...fx.server.context.service.exchange.state.books.allOrders()].filter((o) => o.trader_id === trader.trader_id);
    await waitUntil('the five orders to be placed and canceled', () => mine().length === 5 && mine().every((o) => o.status === 'canceled'), 3000);
    expect(await fx.openOrders(trader)).to.deep.equal([]);
  });

  it('serves /metrics with the child\'s figures as they are at the scrape', async () => {
    const metrics = `${fx.server.url}/metrics`;
    const before = await scrape(metrics, ADMIN_TOKEN);
    const base = value(before, 'exchange_ws_connections');
    const subsBase = value(before, 'exchange_ws_subscriptions');
    const clients = [await WsTestClient.open(fx.server.wsUrl), await WsTestClient.open(fx.server.wsUrl), await WsTestClient.open(fx.server.wsUrl)];
    for (const c of clients.slice(0, 2)) {
      c.send({ op: 'subscribe', channel: 'l3', market: 'FAN-USD' });
      await c.nextType('snapshot');
    }
    const now = await scrape(metrics, ADMIN_TOKEN);
    expect(value(now, 'exchange_ws_connections')).to.equal(base + 3);
    expect(value(now, 'exchange_ws_subscriptions')).to.equal(subsBase + 2);
    expect(value(now, 'exchange_ws_frames_sent_total')).to.be.at.least(value(before, 'exchange_ws_frames_sent_total') + 5);
    for (const c of clients) await c.close();
  });

  it('a stalled child does not stall trading; once more than 2 s behind it drops l3 and trades subscriptions with resync_required', async () => {
    const erin = await fx.trader('fan-erin');
    const watcher = await fx.client();
    const before = await ExchangeFixture.subscribe(watcher, 'FAN-USD');
    const tape = await fx.client();
    tape.send({ op: 'subscribe', channel: 'trades', market: 'FAN-USD' });
    expect(await tape.nextType('subscribed')).to.include({ channel: 'trades', market: 'FAN-USD' });
    const pid = fx.server.fanout?.pid as number;
    process.kill(pid, 'SIGSTOP');
    let placed: OrderRef[] = [];
    try {
      // The exchange answers while its fan-out is frozen.
      const started = performance.now();
      placed = [await restOrder(fx, erin, 'SELL', 400), await restOrder(fx, erin, 'SELL', 401)];
      expect(performance.now() - started).to.be.below(1000);
      await new Promise((r) => setTimeout(r, 2300));
      placed.push(await restOrder(fx, erin, 'SELL', 402));
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    const resync = await watcher.nextType('resync_required');
    expect(resync).to.deep.include({ channel: 'l3', market: 'FAN-USD', expected_sequence: (before['sequence'] as number) + 1 });
    expect(await tape.nextType('resync_required')).to.deep.include({ channel: 'trades', market: 'FAN-USD' });
    const after = await ExchangeFixture.subscribe(watcher, 'FAN-USD');
    for (const o of placed) expect(bookIds(after)).to.include(o.id);
  });

  it('survives the child\'s death: a new child from a fresh snapshot, flagged traders\' orders canceled, trading goes on', async () => {
    const carol = await fx.trader('fan-carol');
    const dave = await fx.trader('fan-dave');
    const flagged = await fx.client();
    flagged.send({ op: 'authenticate', api_key: carol.api_key, cancel_on_disconnect: true });
    await flagged.nextType('authenticated');
    await restOrder(fx, carol, 'BUY', 20);
    const resting = await restOrder(fx, dave, 'SELL', 300);
    const scrapeUrl = `${fx.server.url}/metrics`;
    const framesBefore = value(await scrape(scrapeUrl, ADMIN_TOKEN), 'exchange_ws_frames_sent_total');
    const pid = fx.server.fanout?.pid as number;
    const closed = new Promise<number>((resolve) => flagged.ws.once('close', (code) => resolve(code)));
    process.kill(pid, 'SIGKILL');
    expect(await closed).to.equal(1006);
    await waitUntil('a new child', () => (fx.server.fanout?.pid ?? null) !== null && fx.server.fanout?.pid !== pid);
    expect(isRunning(pid)).to.equal(false);
    // The dropped connection was carol's last flagged one: her orders are canceled.
    await waitUntil('carol\'s orders canceled', async () => (await fx.openOrders(carol)).length === 0);
    // A new client gets the book as the exchange holds it, and trades.
    const c = await fx.clientAs(dave);
    const snapshot = await ExchangeFixture.subscribe(c, 'FAN-USD');
    expect(bookIds(snapshot)).to.include(resting.id);
    // The main process keeps the books (not the deltas): the child's snapshot is the exchange's book.
    const { type: _t, channel: _c, ...book } = fx.server.context.service.state.marketData.snapshot('FAN-USD');
    expect(snapshot).to.deep.include(book);
    const ack = await c.request({ op: 'submit_order', request_id: rid(), market: 'FAN-USD', side: 'SELL', price: 301, quantity: 1 });
    expect(ack.type).to.equal('ack');
    const delta = await c.nextType('delta');
    expect(delta['sequence']).to.equal((snapshot['sequence'] as number) + 1);
    // The counters never go back across children.
    expect(value(await scrape(scrapeUrl, ADMIN_TOKEN), 'exchange_ws_frames_sent_total')).to.be.at.least(framesBefore);
  });

  it('upgrades on their way to a child that dies are all answered (503, or opened then dropped), none left waiting', async () => {
    await waitUntil('a running child', () => (fx.server.fanout?.pid ?? null) !== null);
    const pid = fx.server.fanout?.pid as number;
    // Node hands one socket at a time to the child and queues the rest until it acknowledges; a child
    // killed meanwhile never does.
    const outcomes = Array.from({ length: 40 }, (_, i) => {
      if (i === 5) process.kill(pid, 'SIGKILL');
      return new Promise<string>((resolve) => {
        const ws = new WebSocket(fx.server.wsUrl);
        const timer = setTimeout(() => resolve('no answer in 5 s'), 5_000);
        const done = (what: string): void => {
          clearTimeout(timer);
          ws.terminate();
          resolve(what);
        };
        ws.once('open', () => ws.once('close', () => done('opened, then dropped')));
        ws.once('unexpected-response', (_req, res) => done(String(res.statusCode)));
        ws.once('error', (err) => done(`error ${err.message.replace(/\d+/g, 'N')}`));
      });
    });
    const seen = await Promise.all(outcomes);
    expect(seen.filter((s) => s === 'no answer in 5 s'), seen.join(', ')).to.deep.equal([]);
    await waitUntil('a new child', () => (fx.server.fanout?.pid ?? null) !== null && fx.server.fanout?.pid !== pid);
  });
});
