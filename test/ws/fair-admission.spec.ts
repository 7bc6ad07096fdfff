// Fair admission: while commands wait for the engine (here admission is held, as persistence
// backpressure would hold it), they are taken round robin across traders, operators first. With one
// trader sending as fast as it can and ten others one order each, every one of the ten is admitted
// before the flooder's second queued command (the issue asks: before its tenth). A full per-trader
// queue refuses at once with 503 admission_queue_full and changes nothing.
import { expect } from 'chai';
import { stateHash } from '../../src/projections/state-hash.ts';
import { ExchangeFixture, rid, type Trader } from './support/exchange-fixture.ts';
import { sleep } from './support/ws-test-client.ts';

function restOrder(fx: ExchangeFixture, trader: Trader, price: number): Promise<Response> {
  return fetch(`${fx.server.url}/api/v1/orders`, {
    method: 'POST',
    headers: { 'x-api-key': trader.api_key, 'content-type': 'application/json' },
    body: JSON.stringify({ market: 'BTC-USD', side: 'BUY', price, quantity: 1 }),
  });
}

async function until(what: string, done: () => boolean, ms = 5000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!done()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

/** Records the admission order of the traders' submissions, as the events are applied. */
function recordSubmitters(fx: ExchangeFixture): { order: string[]; stop(): void } {
  const order: string[] = [];
  const sub = fx.server.context.service.state.events$.subscribe((e) => {
    if (e.type === 'OrderSubmitted') order.push(e.data.order.trader_id);
  });
  return { order, stop: () => sub.unsubscribe() };
}

describe('fair admission under saturation', function () {
  this.timeout(30_000);
  let fx: ExchangeFixture;

  before(async () => {
    fx = await ExchangeFixture.start({ PER_USER_REQUESTS_PER_SECOND: '100000', ADMISSION_QUEUE_PER_TRADER: '64' });
    await fx.market('BTC-USD');
  });
  after(() => fx.stop());

  it('one trader flooding over REST and 4 sockets, ten others one order each: each of the ten is admitted within one turn of the flooder', async () => {
    const flooder = await fx.trader('flooder');
    const others = await Promise.all(Array.from({ length: 10 }, (_, i) => fx.trader(`calm${i}`)));
    const sockets = await Promise.all(Array.from({ length: 4 }, () => fx.clientAs(flooder)));
    const calmSockets = await Promise.all(others.map((t) => fx.clientAs(t)));
    const service = fx.server.context.service;
    const recorder = recordSubmitters(fx);
    const release = service.holdAdmission();
    // The flooder first: 40 REST orders at once and 20 pipelined frames on each socket (each socket
    // has one op waiting at a time, its next frames wait behind it).
    const flood = Array.from({ length: 40 }, () => restOrder(fx, flooder, 10));
    for (const s of sockets) for (let i = 0; i < 20; i++) s.send({ op: 'submit_order', request_id: rid('f'), market: 'BTC-USD', side: 'BUY', price: 11, quantity: 1 });
    await until('the flood to queue', () => service.queued >= 44);
    const calm = calmSockets.map((s) => s.request({ op: 'submit_order', request_id: rid('c'), market: 'BTC-USD', side: 'BUY', price: 12, quantity: 1 }, 15_000));
    await until('the ten to queue', () => service.queued >= 54);
    release();
    const replies = await Promise.all(calm);
    expect(replies.map((r) => r.type)).to.deep.equal(Array(10).fill('ack'));
    expect((await Promise.all(flood)).map((r) => r.status)).to.deep.equal(Array(40).fill(201));
    recorder.stop();
    const order = recorder.order;
    const flooderTurns = order.map((t, i) => (t === flooder.trader_id ? i : -1)).filter((i) => i >= 0);
    const calmAt = others.map((t) => order.indexOf(t.trader_id));
    expect(calmAt.every((i) => i >= 0)).to.equal(true);
    // The property: before the flooder's tenth queued command ...
    expect(Math.max(...calmAt)).to.be.below(flooderTurns[9] as number);
    // ... and in fact within one turn: all ten before the flooder's second.
    expect(Math.max(...calmAt)).to.be.below(flooderTurns[1] as number);
  });

  it('operator commands go first: a stop queued after a trader\'s order is admitted before it', async () => {
    const t = await fx.trader('late');
    const service = fx.server.context.service;
    const release = service.holdAdmission();
    const order = restOrder(fx, t, 13);
    await until('the order to queue', () => service.queued === 1);
    const stop = fetch(`${fx.server.url}/api/v1/admin/trading/stop`, { method: 'POST', headers: { authorization: 'Bearer test-admin-token' } });
    await until('the stop to queue', () => service.queued === 2);
    release();
    expect((await stop).status).to.equal(200);
    const refused = await order;
    expect(refused.status).to.equal(409);
    expect(refused.headers.get('x-error-code')).to.equal('trading_disabled');
    await fetch(`${fx.server.url}/api/v1/admin/trading/start`, { method: 'POST', headers: { authorization: 'Bearer test-admin-token' } });
  });

  it('a full per-trader queue refuses at once with 503 admission_queue_full (REST) and a reject (WS), and changes nothing; other traders still queue', async () => {
    const t = await fx.trader('deep');
    const other = await fx.trader('shallow');
    const ws = await fx.clientAs(t);
    const service = fx.server.context.service;
    const before = { seq: service.exchange.seq, hash: stateHash(service.state) };
    const release = service.holdAdmission();
    const accepted = Array.from({ length: 64 }, () => restOrder(fx, t, 14));
    await until('the queue to fill', () => service.queued === 64);
    const refused = await restOrder(fx, t, 14);
    expect(refused.status).to.equal(503);
    expect(refused.headers.get('x-error-code')).to.equal('admission_queue_full');
    expect(refused.headers.get('retry-after')).to.equal('1');
    expect(await refused.json()).to.deep.equal({ error: 'too many of your commands are waiting for the engine (at most 64); retry shortly' });
    const reject = await ws.request({ op: 'submit_order', request_id: 'full', market: 'BTC-USD', side: 'BUY', price: 14, quantity: 1 });
    expect(reject).to.include({ type: 'reject', code: 'admission_queue_full' });
    const otherOrder = restOrder(fx, other, 15);
    await until('the other trader to queue', () => service.queued === 65);
    expect({ seq: service.exchange.seq, hash: stateHash(service.state) }).to.deep.equal(before);
    release();
    expect((await Promise.all(accepted)).every((r) => r.status === 201)).to.equal(true);
    expect((await otherOrder).status).to.equal(201);
    expect(service.exchange.seq).to.equal(before.seq + 65);
  });
});
