// cancel_on_disconnect and the trader's budget: each disconnect's cancel counts against it. Within the
// budget the cancel is logged even when nothing is open (the log shows the disconnect); over it, only
// when something is open, so a loop of connecting with the flag and closing cannot write the log faster
// than the budget allows, while an order left open is still canceled however busy the trader is.
import { expect } from 'chai';
import type { ExchangeEvent } from '../../src/events/types.ts';
import { ExchangeFixture, type Trader } from './support/exchange-fixture.ts';
import { sleep } from './support/ws-test-client.ts';

describe('ws: cancel on disconnect within the trader\'s budget', function () {
  this.timeout(20_000);
  let fx: ExchangeFixture;
  before(async () => {
    fx = await ExchangeFixture.start({ PER_USER_REQUESTS_PER_SECOND: '2', PER_USER_BURST: '2' });
    await fx.market('COD-USD');
  });
  after(async () => {
    await fx.stop();
  });

  async function connectAndDrop(trader: Trader): Promise<void> {
    const c = await fx.client();
    c.send({ op: 'authenticate', api_key: trader.api_key, cancel_on_disconnect: true });
    await c.nextType('authenticated');
    c.ws.terminate();
    await sleep(30);
  }

  it('an open order is canceled over budget; a loop of empty disconnects writes no more than the budget', async () => {
    const trader = await fx.trader('looper');
    const disconnects: ExchangeEvent[] = [];
    const sub = fx.server.context.service.state.events$.subscribe((e) => {
      if (e.type === 'OrdersCanceled' && e.data.reason === 'disconnect' && e.data.trader_id === trader.trader_id) disconnects.push(e);
    });
    try {
      // Both tokens spent: an order placed, and one more request.
      const place = await fetch(`${fx.server.url}/api/v1/orders`, { method: 'POST', headers: { 'x-api-key': trader.api_key, 'content-type': 'application/json' }, body: JSON.stringify({ market: 'COD-USD', side: 'BUY', price: 5, quantity: 1 }) });
      expect(place.status).to.equal(201);
      expect((await fetch(`${fx.server.url}/api/v1/positions`, { headers: { 'x-api-key': trader.api_key } })).status).to.equal(200);
      // Over budget, the order open: canceled all the same.
      await connectAndDrop(trader);
      // Over budget, nothing open: no event however many times.
      for (let i = 0; i < 6; i++) await connectAndDrop(trader);
      await sleep(100);
      expect(disconnects.map((e) => (e.type === 'OrdersCanceled' ? e.data.orders.length : -1))).to.deep.equal([1]);
      expect(fx.server.context.service.state.books.openOrders(trader.trader_id)).to.deep.equal([]);
      // Within the budget again: the disconnect is logged though nothing is open.
      await sleep(1100);
      await connectAndDrop(trader);
      await sleep(100);
      expect(disconnects.map((e) => (e.type === 'OrdersCanceled' ? e.data.orders.length : -1))).to.deep.equal([1, 0]);
    } finally {
      sub.unsubscribe();
    }
  });
});
