// A client that reads its socket but sends a large burst of orders at once is slowed down (its
// inbox waits while its replies are written), never cut off: every order gets its ack, in order.
import { expect } from 'chai';
import { WebSocket } from 'ws';
import { ExchangeFixture } from './support/exchange-fixture.ts';
import { sleep } from './support/ws-test-client.ts';

describe('ws: a burst of orders from one client', function () {
  this.timeout(60_000);
  let fx: ExchangeFixture;

  before(async () => {
    fx = await ExchangeFixture.start({ WS_BROADCAST_BUFFER: '64' });
    await fx.market('BTC-USD');
  });
  after(async () => {
    await fx.stop();
  });

  it('acks all 3,000 orders sent without waiting, in order, and keeps the connection', async () => {
    const trader = await fx.trader('burst');
    const c = await fx.clientAs(trader);
    c.send({ op: 'subscribe', channel: 'l3', market: 'BTC-USD' });
    const total = 3000;
    // One frame per order, all written at once; BUY then SELL at one price, so every other order
    // trades against the previous one and each order makes several frames (ack, fills, states, delta).
    let frames = '';
    for (let i = 0; i < total; i++) frames += JSON.stringify({ op: 'submit_order', request_id: `b${i}`, market: 'BTC-USD', side: i % 2 === 0 ? 'BUY' : 'SELL', price: 100, quantity: 1 }) + '\n';
    for (const line of frames.trim().split('\n')) c.send(line);
    const replies: string[] = [];
    for (let waited = 0; replies.length < total && waited < 40_000; waited += 50) {
      // In arrival order: past its budget (docs/websocket.md, "Limits") a burst gets rejects between acks, and after
      // WS_ABUSE_MULTIPLE x budget rejects a second its next frames wait for the next second.
      const batch = c.untaken().filter((f) => f.type === 'ack' || f.type === 'reject');
      c.take('ack');
      c.take('reject');
      for (const f of batch) replies.push(String(f['request_id']));
      if (replies.length < total) await sleep(50);
    }
    expect(replies.length).to.equal(total);
    expect(replies).to.deep.equal(Array.from({ length: total }, (_, i) => `b${i}`));
    expect(c.ws.readyState).to.equal(WebSocket.OPEN);
    expect(c.take('error')).to.deep.equal([]);
  });
});
