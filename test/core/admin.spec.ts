import { expect } from 'chai';
import { fillId } from '../../src/commands/fill-ids.ts';
import { given } from './dsl.ts';
import { ALICE, BOB, BTC, orderFilled, orderRested, SEED, traderProvisioned, WORLD } from './fixtures.ts';

describe('core: ProvisionTrader', () => {
  it('provisions a trader with a trimmed username and only the hash of the key', () => {
    const s = given();
    s.when({ type: 'ProvisionTrader', username: '  alice ', trader_id: ALICE, api_key_hash: 'h' }).then({ type: 'TraderProvisioned', data: { trader_id: ALICE, username: 'alice', api_key_hash: 'h' } });
    expect(s.exchange.state.keys.byApiKeyHash('h')?.trader_id).to.equal(ALICE);
  });

  it('refuses duplicates (409) and empty, long or control-character names (400)', () => {
    given(traderProvisioned(ALICE, 'alice')).when({ type: 'ProvisionTrader', username: 'alice ', trader_id: BOB, api_key_hash: 'h2' }).thenRejects('username_taken');
    for (const bad of ['', '   ', 'x'.repeat(65), 'bad\nname', 'tab\tname']) given().when({ type: 'ProvisionTrader', username: bad, trader_id: BOB, api_key_hash: 'h' }).thenRejects('invalid_username');
    given().when({ type: 'ProvisionTrader', username: 'x'.repeat(64), trader_id: BOB, api_key_hash: 'h' }).then({ type: 'TraderProvisioned', data: { trader_id: BOB, username: 'x'.repeat(64), api_key_hash: 'h' } });
    // 64 characters, not UTF-16 code units, and counted after trimming.
    const emoji = '😀'.repeat(64);
    given().when({ type: 'ProvisionTrader', username: ` ${emoji} `, trader_id: BOB, api_key_hash: 'h' }).then({ type: 'TraderProvisioned', data: { trader_id: BOB, username: emoji, api_key_hash: 'h' } });
    given().when({ type: 'ProvisionTrader', username: '😀'.repeat(65), trader_id: BOB, api_key_hash: 'h' }).thenRejects('invalid_username');
  });
});

describe('core: StartTrading / StopTrading', () => {
  it('toggles the global control', () => {
    const s = given();
    s.when({ type: 'StopTrading' }).then({ type: 'TradingStopped', data: {} });
    expect(s.exchange.state.markets.controls.trading_enabled).to.equal(false);
    s.exchange.execute({ type: 'StartTrading', time: '2026-01-01T00:05:00.000000Z' });
    expect(s.exchange.state.markets.controls).to.deep.equal({ trading_enabled: true, updated_at: '2026-01-01T00:05:00.000000Z' });
  });
});

describe('core: ResetTrading', () => {
  it('clears orders, positions and fills of everyone, keeps accounts and markets, and counts what it cleared', () => {
    const s = given(
      ...WORLD,
      orderRested('m', BOB, 'SELL', 100, 4),
      orderFilled('t', ALICE, 'BUY', 100, 3, [{ fill_id: fillId(SEED, 0), maker_order_id: 'm', maker_trader_id: BOB, price: 100, quantity: 3, maker_remaining: 1 }]),
      orderRested('b', ALICE, 'BUY', 90, 2),
    );
    s.when({ type: 'ResetTrading' }).then({ type: 'TradingReset', data: { cleared_orders: 2, cleared_positions: 2, cleared_fills: 1 } });
    const st = s.exchange.state;
    expect(st.books.restingCount).to.equal(0);
    expect(st.positions.viewsOf(ALICE)).to.deep.equal([]);
    expect(s.history.fills.of(BOB)).to.deep.equal([]);
    expect(st.fills.count).to.equal(0);
    expect(st.traders.count).to.equal(2);
    expect(st.markets.get(BTC)?.status).to.equal('enabled');
    expect(st.leaderboard.at(st.seq).map((r) => r.net_pnl)).to.deep.equal([0, 0]);
  });
});

describe('core: PostAdminMessage', () => {
  it('broadcasts (no target) and targets a user by name', () => {
    const s = given(...WORLD);
    s.when({ type: 'PostAdminMessage', message_id: 'm1', target_username: null, market: null, level: 'info', title: null, body: ' hello ' }).then({
      type: 'AdminMessagePosted',
      data: { message_id: 'm1', target_username: null, target_trader_id: null, market: null, level: 'info', title: null, body: 'hello' },
    });
    given(...WORLD)
      .when({ type: 'PostAdminMessage', message_id: 'm2', target_username: 'bob', market: BTC, level: 'critical', title: 'T', body: 'b' })
      .then({ type: 'AdminMessagePosted', data: { message_id: 'm2', target_username: 'bob', target_trader_id: BOB, market: BTC, level: 'critical', title: 'T', body: 'b' } });
  });

  it('refuses a market context that is not a BASE-QUOTE symbol', () => {
    given(...WORLD).when({ type: 'PostAdminMessage', message_id: 'm', target_username: null, market: 'whatever', level: 'info', title: null, body: 'x' }).thenRejects('invalid_market');
  });

  it('refuses an empty body (400) and an unknown target (404)', () => {
    given(...WORLD).when({ type: 'PostAdminMessage', message_id: 'm', target_username: null, market: null, level: 'info', title: null, body: '  ' }).thenRejects('invalid_message_body');
    given(...WORLD).when({ type: 'PostAdminMessage', message_id: 'm', target_username: 'zed', market: null, level: 'info', title: null, body: 'x' }).thenRejects('user_not_found');
  });

  it('keeps messages newest first, 50 by default', () => {
    const events = Array.from({ length: 60 }, (_, i) => ({ type: 'AdminMessagePosted', data: { message_id: `m${i}`, target_username: null, target_trader_id: null, market: null, level: 'info', title: null, body: `b${i}` } }) as const);
    const s = given(...events);
    const newest = s.history.messages.newest();
    expect(newest).to.have.length(50);
    expect(newest[0]?.message_id).to.equal('m59');
    expect(s.history.messages.newest(3).map((m) => m.message_id)).to.deep.equal(['m59', 'm58', 'm57']);
  });
});
