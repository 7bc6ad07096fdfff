// A hub made over a state that already has resting orders (a restart from a snapshot, a fan-out child
// started or replaced mid-competition) starts each market's l2 book from those orders: its first
// snapshot is the l3 book summed by price level, not an empty book that deltas then fill in.
import { expect } from 'chai';
import { Exchange } from '../../src/commands/exchange.ts';
import { GTC_LIMIT } from '../../src/commands/order-terms.ts';
import type { Command, CommandBody } from '../../src/commands/types.ts';
import type { BookOrderView } from '../../src/projections/views.ts';
import { MarketDataHub } from '../../src/server/feeds/market-data-hub.ts';
import type { L2Level } from '../../src/server/feeds/l2-book.ts';
import type { Connection } from '../../src/server/ws/connection.ts';

const MARKET = 'SEED-USD';
const A = '00000000-0000-4000-8000-0000000000a1';
const B = '00000000-0000-4000-8000-0000000000b1';

/** The l3 orders of one side summed by price, best first, as an l2 snapshot lists them. */
function levels(orders: readonly BookOrderView[]): L2Level[] {
  const out: L2Level[] = [];
  for (const o of orders) {
    const last = out[out.length - 1];
    if (last !== undefined && last.price === o.price) out[out.length - 1] = { price: o.price, quantity: last.quantity + o.remaining, orders: last.orders + 1 };
    else out.push({ price: o.price, quantity: o.remaining, orders: 1 });
  }
  return out;
}

describe('feeds: a hub over a state with resting orders', () => {
  it('starts each l2 book from them: the first snapshot is the l3 book summed by level', () => {
    const exchange = new Exchange();
    let t = 0;
    const run = (body: CommandBody): void => {
      t++;
      exchange.execute({ ...body, time: `2026-11-28T10:00:00.${String(t).padStart(6, '0')}Z` } as Command);
    };
    run({ type: 'UpsertMarket', market: { market_id: MARKET, base_asset: 'SEED', quote_asset: 'USD', tick_size: 1, min_order_quantity: 1, reference_price: 100, enabled: true } });
    run({ type: 'ProvisionTrader', username: 'a', trader_id: A, api_key_hash: 'ha' });
    run({ type: 'ProvisionTrader', username: 'b', trader_id: B, api_key_hash: 'hb' });
    const orders: [string, 'BUY' | 'SELL', number, number][] = [
      [A, 'BUY', 98, 5],
      [B, 'BUY', 98, 3],
      [A, 'BUY', 95, 7],
      [B, 'SELL', 103, 4],
      [A, 'SELL', 101, 6],
      [A, 'SELL', 103, 2],
      // Crosses part of the 101 ask: the level left is what rests, not what was placed.
      [B, 'BUY', 101, 2],
    ];
    orders.forEach(([trader, side, price, quantity], i) =>
      run({ type: 'SubmitOrder', trader_id: trader, market: MARKET, side, price, quantity, ...GTC_LIMIT, client_order_id: null, order_id: `seed-${i}`, fill_id_seed: `fill-${i}` } as CommandBody),
    );
    const sent: string[] = [];
    const connection = { feeds: new Map(), send: (frame: string) => sent.push(frame) } as unknown as Connection;
    const hub = new MarketDataHub(exchange.state, { intervalMs: 1000, standingsIntervalMs: 1000, publicStandings: false });
    try {
      hub.subscribeL2(connection, MARKET, null);
      const snapshot = JSON.parse(sent[0] as string) as { bids: L2Level[]; asks: L2Level[] };
      const l3 = exchange.state.marketData.snapshot(MARKET);
      expect(l3.asks.length, 'the l3 book has resting asks').to.be.greaterThan(0);
      expect({ bids: snapshot.bids, asks: snapshot.asks }).to.deep.equal({ bids: levels(l3.bids), asks: levels(l3.asks) });
      expect(snapshot.asks[0]).to.deep.equal({ price: 101, quantity: 4, orders: 1 });
      expect(snapshot.bids[0]).to.deep.equal({ price: 98, quantity: 8, orders: 2 });
    } finally {
      hub.close();
    }
  });
});
