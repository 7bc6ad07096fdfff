// One budget per trader across REST and WebSocket: a trader flooding over both at once is held to
// PER_USER_REQUESTS_PER_SECOND in all, its refused ops change nothing, another trader is unaffected;
// acks and rejects tell the remaining budget; a connection that keeps flooding is closed with 1008.
import { expect } from 'chai';
import { WebSocket } from 'ws';
import { stateHash } from '../../src/projections/state-hash.ts';
import { ExchangeFixture, rid, type Trader } from './support/exchange-fixture.ts';
import { sleep, WsTestClient, type Frame } from './support/ws-test-client.ts';

const RATE = 10;

function order(price: number, requestId = rid('o')): Record<string, unknown> & { request_id: string } {
  return { op: 'submit_order', request_id: requestId, market: 'BTC-USD', side: 'BUY', price, quantity: 1 };
}

async function restOrder(fx: ExchangeFixture, trader: Trader, price: number): Promise<Response> {
  return fetch(`${fx.server.url}/api/v1/orders`, {
    method: 'POST',
    headers: { 'x-api-key': trader.api_key, 'content-type': 'application/json' },
    body: JSON.stringify({ market: 'BTC-USD', side: 'BUY', price, quantity: 1 }),
  });
}

async function replies(c: WsTestClient, ids: readonly string[]): Promise<Frame[]> {
  return Promise.all(ids.map((id) => c.next((f) => f['request_id'] === id, `reply to ${id}`, 10_000)));
}

describe('ws + REST: one budget per trader', function () {
  this.timeout(30_000);
  let fx: ExchangeFixture;

  before(async () => {
    fx = await ExchangeFixture.start({ PER_USER_REQUESTS_PER_SECOND: String(RATE), WS_ABUSE_MULTIPLE: '3', WS_ABUSE_SECONDS: '2' });
    await fx.market('BTC-USD');
  });
  after(() => fx.stop());

  it('a trader flooding over two sockets and REST at once gets only its budget; the rest is refused and changes nothing; another trader is unaffected', async () => {
    const flooder = await fx.trader('flooder');
    const calm = await fx.trader('calm');
    const [w1, w2] = [await fx.clientAs(flooder), await fx.clientAs(flooder)];
    const calmWs = await fx.clientAs(calm);
    await sleep(1100); // a full budget
    const started = performance.now();
    const ids1 = Array.from({ length: 30 }, () => rid('a'));
    const ids2 = Array.from({ length: 30 }, () => rid('b'));
    for (const id of ids1) w1.send(order(10, id));
    for (const id of ids2) w2.send(order(11, id));
    const rest = await Promise.all(Array.from({ length: 15 }, () => restOrder(fx, flooder, 12)));
    const wsReplies = [...(await replies(w1, ids1)), ...(await replies(w2, ids2))];
    const elapsed = performance.now() - started;
    const calmReplies = await replies(calmWs, await Promise.all([1, 2, 3].map(async (p) => {
      const id = rid('c');
      calmWs.send(order(p, id));
      return id;
    })));

    const acked = wsReplies.filter((f) => f.type === 'ack');
    const rejected = wsReplies.filter((f) => f.type === 'reject');
    const restOk = rest.filter((r) => r.status === 201);
    const rest429 = rest.filter((r) => r.status === 429);
    const accepted = acked.length + restOk.length;
    expect(accepted + rejected.length + rest429.length).to.equal(75);
    // The whole budget of the first second, and never more than the rate in any second.
    expect(accepted).to.be.at.least(RATE);
    expect(accepted).to.be.at.most(RATE * (1 + Math.floor(elapsed / 1000)));
    for (const r of rejected) {
      expect(r).to.deep.include({ code: 'rate_limit_exceeded', message: `per-user rate limit exceeded: max ${RATE} ops/sec`, rate_limit_remaining: 0 });
      expect(r['retry_after_ms']).to.be.a('number');
    }
    for (const a of acked) expect(a['rate_limit_remaining']).to.be.a('number').within(0, RATE - 1);
    for (const r of rest429) {
      expect(r.headers.get('x-error-code')).to.equal('rate_limited');
      expect(await r.json()).to.deep.equal({ error: `per-user rate limit exceeded: max ${RATE} ops/sec` });
    }
    for (const r of restOk) expect(Number(r.headers.get('x-ratelimit-remaining'))).to.be.within(0, RATE - 1);
    // The state shows exactly what the budget admitted (read once the budget refilled: reads count too).
    await sleep(1100);
    expect(await fx.openOrders(flooder)).to.have.length(accepted);
    // Another trader's orders are all admitted.
    expect(calmReplies.map((f) => f.type)).to.deep.equal(['ack', 'ack', 'ack']);
    expect(await fx.openOrders(calm)).to.have.length(3);
  });

  it('refused ops change nothing: state hash before == after', async () => {
    const t = await fx.trader('hasher');
    const c = await fx.clientAs(t);
    await sleep(1100);
    const first = Array.from({ length: RATE }, () => rid('h'));
    for (const id of first) c.send(order(20, id));
    const firstReplies = await replies(c, first);
    expect(firstReplies.map((f) => f.type)).to.deep.equal(Array(RATE).fill('ack'));
    expect(firstReplies.map((f) => f['rate_limit_remaining'])).to.deep.equal(Array.from({ length: RATE }, (_, i) => RATE - 1 - i));
    const state = fx.server.context.service.state;
    const before = { seq: state.seq, hash: stateHash(state) };
    const more = Array.from({ length: 20 }, () => rid('h'));
    for (const id of more) c.send({ ...order(21, id), op: id.endsWith('0') ? 'cancel_all' : 'submit_order' });
    const moreReplies = await replies(c, more);
    expect(moreReplies.every((f) => f.type === 'reject' && f['code'] === 'rate_limit_exceeded')).to.equal(true);
    expect({ seq: state.seq, hash: stateHash(state) }).to.deep.equal(before);
    expect(c.ws.readyState).to.equal(WebSocket.OPEN);
  });

  it('a connection that keeps sending at many times its budget for seconds is closed with 1008 and a reason', async () => {
    const t = await fx.trader('abuser');
    const c = await fx.clientAs(t);
    const other = await fx.clientAs(t);
    const closed = new Promise<{ code: number; reason: string }>((resolve) => c.ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
    const started = performance.now();
    let open = true;
    void closed.then(() => (open = false));
    // 100 ops every 100 ms: 1000/s against a budget of 10 (closing takes 3x the budget for 2 s).
    while (open && performance.now() - started < 8000) {
      for (let i = 0; i < 100 && c.ws.readyState === WebSocket.OPEN; i++) c.send(order(30));
      await sleep(100);
    }
    expect(open, `still open after 8 s of flooding; replies ${JSON.stringify(c.history.map((f) => f.type).reduce((m: Record<string, number>, t) => ({ ...m, [t]: (m[t] ?? 0) + 1 }), {}))}`).to.equal(false);
    const { code, reason } = await closed;
    expect(code).to.equal(1008);
    expect(reason).to.match(/^rate limit: over 3x 10 ops\/sec for 2s/);
    const took = performance.now() - started;
    expect(took).to.be.within(1000, 6000);
    // Its trader is not banned: another connection keeps working once the budget refills.
    await sleep(1100);
    expect((await other.request(order(31, rid('x')))).type).to.equal('ack');
  });
});
