// The conflated feeds' hub holds state per market followed. Names a client makes up (any string is a
// valid market name to subscribe to: a market may be created later) must not stay once nobody follows
// them: subscribing and unsubscribing made-up names grew the hub without bound, ~2 KB a name, until the
// process ran out of memory (an unauthenticated client could do it).
import { expect } from 'chai';
import { Exchange } from '../../src/commands/exchange.ts';
import { MarketDataHub } from '../../src/server/feeds/market-data-hub.ts';
import type { Connection } from '../../src/server/ws/connection.ts';

function fakeConnection(): Connection {
  return { feeds: new Map(), send: () => {} } as unknown as Connection;
}

describe('feeds: the hub keeps no market nobody follows and the exchange does not have', () => {
  it('made-up names subscribed and unsubscribed, on l2 and ticker, by one connection and by connections that close', () => {
    const exchange = new Exchange();
    exchange.execute({ type: 'UpsertMarket', time: '2026-11-26T10:00:00.000001Z', market: { market_id: 'BTC-USD', base_asset: 'BTC', quote_asset: 'USD', tick_size: 1, min_order_quantity: 1, reference_price: 100, enabled: true } });
    const hub = new MarketDataHub(exchange.state, { intervalMs: 1000, standingsIntervalMs: 1000, publicStandings: false });
    try {
      const real = fakeConnection();
      hub.subscribeTicker(real, 'BTC-USD');
      const base = hub.marketCount;
      const one = fakeConnection();
      for (let i = 0; i < 2000; i++) {
        hub.subscribeTicker(one, `MADE-UP-${i}`);
        hub.unsubscribe(one, 'ticker', `MADE-UP-${i}`);
        hub.subscribeL2(one, `L2-${i}`, i % 2 === 0 ? null : 5);
        hub.unsubscribe(one, 'l2', `L2-${i}`);
      }
      for (let i = 0; i < 500; i++) {
        const gone = fakeConnection();
        hub.subscribeTicker(gone, `CLOSED-${i}`);
        hub.subscribeL2(gone, `CLOSED-${i}`, null);
        hub.remove(gone);
      }
      expect(hub.marketCount).to.equal(base);
      // A made-up name followed stays while followed; the real market stays when nobody follows it.
      hub.subscribeTicker(one, 'SOON-USD');
      expect(hub.marketCount).to.equal(base + 1);
      hub.unsubscribe(real, 'ticker', 'BTC-USD');
      hub.unsubscribe(one, 'ticker', 'SOON-USD');
      expect(hub.marketCount).to.equal(base);
    } finally {
      hub.close();
    }
  });
});
