// Exchange.startOver: recovery drops a state a snapshot could not be restored into (or whose next events
// did not apply) and starts again on a fresh one (src/server/persistence/postgres/recovery.ts).
import { expect } from 'chai';
import { Exchange } from '../../src/commands/exchange.ts';
import { restoreSnapshot, takeSnapshot, type StateSnapshot } from '../../src/projections/snapshot.ts';
import { stateHash } from '../../src/projections/state-hash.ts';

const MARKET = { market_id: 'S-USD', base_asset: 'S', quote_asset: 'USD', tick_size: 1, min_order_quantity: 1, reference_price: 100, enabled: true };

function live(): Exchange {
  const exchange = new Exchange({ deltaRing: 0 });
  exchange.execute({ type: 'ProvisionTrader', time: '2026-11-26T10:00:00.000001Z', username: 'ann', trader_id: 't1', api_key_hash: 'h1' });
  exchange.execute({ type: 'UpsertMarket', time: '2026-11-26T10:00:00.000002Z', market: MARKET });
  exchange.execute({ type: 'StartTrading', time: '2026-11-26T10:00:00.000003Z' });
  exchange.execute({ type: 'SubmitOrder', time: '2026-11-26T10:00:00.000004Z', trader_id: 't1', market: 'S-USD', side: 'BUY', price: 99, quantity: 2, order_type: 'LIMIT', time_in_force: 'GTC', self_trade_prevention: 'NONE', client_order_id: null, order_id: 'o1', fill_id_seed: '00000000-0000-4000-8000-000000000001' });
  return exchange;
}

describe('core: starting over on a fresh state', () => {
  it('after a restore that threw half-way, gives a fresh state that a good snapshot restores into exactly', () => {
    const source = live();
    const good = JSON.parse(JSON.stringify(takeSnapshot(source.state))) as StateSnapshot;
    // Markets and traders restore before the orders do: this one fails after changing the state.
    const bad = { ...good, parts: good.parts.map((p) => (p.section === 'orders' ? { section: 'orders', items: 'not orders' } : p)) } as unknown as StateSnapshot;
    expect(good.parts.some((p) => p.section === 'orders')).to.equal(true);
    const target = new Exchange({ deltaRing: 0 });
    const before = target.state;
    expect(() => restoreSnapshot(target.state, bad)).to.throw();
    // (Its seq is still 0: restoreSnapshot's own freshness check cannot see the markets and traders in it.)
    target.startOver();
    expect(target.state).to.not.equal(before);
    expect(target.seq).to.equal(0);
    restoreSnapshot(target.state, good);
    expect(stateHash(target.state)).to.equal(stateHash(source.state));
    // It folds on from there as the source runs (recovery's next events).
    target.fold(source.execute({ type: 'CancelOrder', time: '2026-11-26T10:00:00.000005Z', trader_id: 't1', order_id: 'o1' }));
    expect(stateHash(target.state)).to.equal(stateHash(source.state));
  });

  it('is refused while its own in-memory log holds events (they would disagree with a fresh state)', () => {
    const exchange = live();
    expect(() => exchange.startOver()).to.throw(/events in its in-memory log/);
    expect(exchange.seq).to.equal(4);
  });
});
