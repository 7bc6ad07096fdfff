// `npm run demo` as a newcomer meets it: within seconds the books have both sides and trades happen,
// and the bots stay inside the rules they are ordinary clients of (rate limit, ±1000 position limit).
import { expect } from 'chai';
import { startDemo, type RunningDemo } from '../../demo/run-demo.ts';
import { DEMO_MARKETS } from '../../demo/demo-market.ts';
import { ExchangeClient, eventually } from './support/exchange-client.ts';
import { ADMIN_TOKEN } from '../support/server.ts';

describe('demo (npm run demo)', function () {
  this.timeout(20_000);
  let demo: RunningDemo;

  before(async () => {
    demo = await startDemo({ env: { BIND_ADDR: '127.0.0.1:0', ADMIN_API_TOKEN: ADMIN_TOKEN, LOG_LEVEL: 'silent' }, seed: 7, makers: 2, takers: 2 });
  });

  after(async () => {
    await demo?.stop();
  });

  it('fills every market with two-sided books and trades within seconds, inside the limits', async () => {
    const api = new ExchangeClient(demo.server.url);
    const taker = demo.traders.find((t) => t.username === 'taker-1');
    expect(taker).to.not.equal(undefined);
    await eventually(async () => {
      const fills = await api.call<unknown[]>('GET', '/api/v1/fills', { apiKey: taker?.apiKey ?? '' });
      expect(fills.length).to.be.greaterThan(0);
    }, 12_000);
    const state = demo.server.context.service.state;
    for (const m of DEMO_MARKETS) {
      const snapshot = state.marketData.snapshot(m.market_id);
      expect(snapshot.bids.length, `${m.market_id} bids`).to.be.greaterThan(0);
      expect(snapshot.asks.length, `${m.market_id} asks`).to.be.greaterThan(0);
    }
    for (const t of demo.traders) {
      const positions = await api.call<{ net_quantity: number }[]>('GET', '/api/v1/positions', { apiKey: t.apiKey });
      for (const p of positions) expect(Math.abs(p.net_quantity), t.username).to.be.at.most(1000);
    }
    expect(demo.rateLimited()).to.equal(0);
    expect(demo.traders.map((t) => t.username)).to.include('you');
  });
});
