import { GTC_LIMIT } from '../../src/commands/order-terms.ts';
import { expect } from 'chai';
import { fillId } from '../../src/commands/fill-ids.ts';
import type { MarketInput } from '../../src/commands/types.ts';
import { given } from './dsl.ts';
import { ALICE, BOB, BTC, ETH, market, marketUpserted, orderFilled, orderRested, SEED, WORLD } from './fixtures.ts';

function input(overrides: Partial<MarketInput> = {}): MarketInput {
  return { market_id: BTC, base_asset: 'BTC', quote_asset: 'USD', tick_size: 1, min_order_quantity: 1, reference_price: 100, enabled: true, ...overrides };
}

const settledMessage = { message_id: 'msg', target_username: null, target_trader_id: null, market: BTC, level: 'info', title: 'BTC-USD settled', body: 'Market BTC-USD settled at 110' } as const;

describe('core: UpsertMarket', () => {
  it('creates a market, display name falling back to the id', () => {
    const s = given();
    s.when({ type: 'UpsertMarket', market: input({ display_name: null }) }).then({ type: 'MarketUpserted', data: { market: market(BTC) } });
    expect(s.exchange.state.markets.get(BTC)).to.deep.include({ status: 'enabled', display_name: BTC, settlement_price: null });
  });

  it('creates a disabled market when enabled is false, and replaces a definition keeping created_at', () => {
    const s = given(marketUpserted(BTC));
    const created = s.exchange.state.markets.get(BTC)?.created_at;
    s.when({ type: 'UpsertMarket', market: input({ enabled: false, tick_size: 5, display_name: 'Bitcoin' }) }).then({
      type: 'MarketUpserted',
      data: { market: market(BTC, { enabled: false, tick_size: 5, display_name: 'Bitcoin' }) },
    });
    const m = s.exchange.state.markets.get(BTC);
    expect(m?.status).to.equal('disabled');
    expect(m?.created_at).to.equal(created);
    expect((m?.updated_at ?? '') > (created ?? '')).to.equal(true);
  });

  it('rejects a market_id that is not base-quote, and bad numbers, each with its code', () => {
    given().when({ type: 'UpsertMarket', market: input({ market_id: 'BTC-EUR' }) }).thenRejects('invalid_market_definition');
    given().when({ type: 'UpsertMarket', market: input({ base_asset: 'B-T' , market_id: 'B-T-USD'}) }).thenRejects('invalid_market_definition');
    given().when({ type: 'UpsertMarket', market: input({ tick_size: 0 }) }).thenRejects('invalid_tick_size');
    given().when({ type: 'UpsertMarket', market: input({ min_order_quantity: 0 }) }).thenRejects('invalid_min_order_quantity');
    given().when({ type: 'UpsertMarket', market: input({ reference_price: 0 }) }).thenRejects('invalid_reference_price');
  });

  it('refuses to replace a settled market (409 market_settled)', () => {
    const err = given(marketUpserted(BTC), { type: 'MarketSettled', data: { market_id: BTC, settlement_price: 110, canceled_orders: 0, affected_traders: 0, settled_quantity: 0, announcement: settledMessage } })
      .when({ type: 'UpsertMarket', market: input() })
      .thenRejects('market_settled');
    expect(err.status).to.equal(409);
  });
});

describe('core: LoadConfig', () => {
  it('upserts every market and sets trading_enabled when given', () => {
    const s = given(marketUpserted(BTC));
    s.when({ type: 'LoadConfig', trading_enabled: false, markets: [input(), input({ market_id: ETH, base_asset: 'ETH' })] }).then({
      type: 'ConfigLoaded',
      data: { trading_enabled: false, markets: [market(BTC), market(ETH)] },
    });
    expect(s.exchange.state.markets.controls.trading_enabled).to.equal(false);
    expect(s.exchange.state.markets.list().map((m) => m.market_id)).to.deep.equal([BTC, ETH]);
  });

  it('keeps trading_enabled when omitted; rejects duplicates and settled markets without applying any', () => {
    given().when({ type: 'LoadConfig', markets: [] }).then({ type: 'ConfigLoaded', data: { trading_enabled: null, markets: [] } });
    given().when({ type: 'LoadConfig', markets: [input(), input()] }).thenRejects('invalid_market_definition');
    given(marketUpserted(BTC), { type: 'MarketSettled', data: { market_id: BTC, settlement_price: 1, canceled_orders: 0, affected_traders: 0, settled_quantity: 0, announcement: settledMessage } })
      .when({ type: 'LoadConfig', markets: [input({ market_id: ETH, base_asset: 'ETH' }), input()] })
      .thenRejects('market_settled');
  });
});

describe('core: PatchMarket', () => {
  it('changes only the fields given; enabled toggles the status', () => {
    const s = given(marketUpserted(BTC));
    s.when({ type: 'PatchMarket', market_id: BTC, changes: { enabled: false, reference_price: 120 } }).then({
      type: 'MarketPatched',
      data: { market_id: BTC, changes: { enabled: false, reference_price: 120 } },
    });
    expect(s.exchange.state.markets.get(BTC)).to.deep.include({ status: 'disabled', reference_price: 120, tick_size: 1 });
  });

  it('rejects bad values (400), unknown markets (404) and settled ones (409)', () => {
    given(marketUpserted(BTC)).when({ type: 'PatchMarket', market_id: BTC, changes: { tick_size: 0 } }).thenRejects('invalid_tick_size');
    given(marketUpserted(BTC)).when({ type: 'PatchMarket', market_id: BTC, changes: { min_order_quantity: 1.5 } }).thenRejects('invalid_min_order_quantity');
    given().when({ type: 'PatchMarket', market_id: BTC, changes: {} }).thenRejects('market_not_configured');
    given(marketUpserted(BTC), { type: 'MarketSettled', data: { market_id: BTC, settlement_price: 1, canceled_orders: 0, affected_traders: 0, settled_quantity: 0, announcement: settledMessage } })
      .when({ type: 'PatchMarket', market_id: BTC, changes: { enabled: true } })
      .thenRejects('market_settled');
  });

  it('a disabled market keeps its resting orders, which match again once re-enabled', () => {
    const s = given(...WORLD, orderRested('m', BOB, 'SELL', 100, 2), { type: 'MarketPatched', data: { market_id: BTC, changes: { enabled: false } } });
    expect(s.exchange.state.books.order('m')?.remaining).to.equal(2);
    s.exchange.execute({ type: 'PatchMarket', market_id: BTC, changes: { enabled: true }, time: '2026-01-01T00:01:00.000000Z' });
    const e = s.exchange.execute({ type: 'SubmitOrder', trader_id: ALICE, market: BTC, side: 'BUY', price: 100, quantity: 2, ...GTC_LIMIT, order_id: 't', fill_id_seed: SEED, time: '2026-01-01T00:01:01.000000Z' });
    expect(e.type === 'OrderSubmitted' && e.data.fills.length).to.equal(1);
  });
});

describe('core: SettleMarket', () => {
  const traded = [
    ...WORLD,
    orderRested('m', BOB, 'SELL', 100, 4),
    orderFilled('t', ALICE, 'BUY', 100, 4, [{ fill_id: fillId(SEED, 0), maker_order_id: 'm', maker_trader_id: BOB, price: 100, quantity: 4, maker_remaining: 0 }]),
    orderRested('r1', ALICE, 'BUY', 90, 3),
    orderRested('r2', BOB, 'SELL', 120, 1),
  ];

  it('cancels resting orders, realizes PnL at the settlement price, flattens positions and announces it', () => {
    const s = given(...traded);
    s.when({ type: 'SettleMarket', market_id: BTC, settlement_price: 110, announcement: null, message_id: 'msg' }).then({
      type: 'MarketSettled',
      data: { market_id: BTC, settlement_price: 110, canceled_orders: 2, affected_traders: 2, settled_quantity: 4, announcement: settledMessage },
    });
    const st = s.exchange.state;
    expect(st.books.marketOrderCount(BTC)).to.equal(0);
    expect(st.positions.viewsOf(ALICE)[0]).to.deep.include({ net_quantity: 0, average_entry_price: null, realized_pnl: 40 });
    expect(st.positions.viewsOf(BOB)[0]).to.deep.include({ net_quantity: 0, realized_pnl: -40 });
    expect(st.markets.get(BTC)).to.deep.include({ status: 'settled', settlement_price: 110 });
    expect(s.history.messages.newest()[0]).to.deep.include({ body: 'Market BTC-USD settled at 110', market: BTC });
  });

  it('uses the announcement when given, and settles a disabled market too', () => {
    given(...traded, { type: 'MarketPatched', data: { market_id: BTC, changes: { enabled: false } } })
      .when({ type: 'SettleMarket', market_id: BTC, settlement_price: 110, announcement: 'round over', message_id: 'msg' })
      .then({ type: 'MarketSettled', data: { market_id: BTC, settlement_price: 110, canceled_orders: 2, affected_traders: 2, settled_quantity: 4, announcement: { ...settledMessage, body: 'round over' } } });
  });

  it('broadcasts the default text when the announcement is blank', () => {
    given(...traded)
      .when({ type: 'SettleMarket', market_id: BTC, settlement_price: 110, announcement: '   ', message_id: 'msg' })
      .then({ type: 'MarketSettled', data: { market_id: BTC, settlement_price: 110, canceled_orders: 2, affected_traders: 2, settled_quantity: 4, announcement: settledMessage } });
  });

  it('refuses a reference price whose marks would leave the exact range', () => {
    given().when({ type: 'UpsertMarket', market: input({ reference_price: Math.floor(Number.MAX_SAFE_INTEGER / 1000) + 1 }) }).thenRejects('invalid_reference_price');
    given(marketUpserted(BTC)).when({ type: 'PatchMarket', market_id: BTC, changes: { reference_price: Number.MAX_SAFE_INTEGER } }).thenRejects('invalid_reference_price');
  });

  it('checks the price (400) before the market (404), and refuses a second settlement (409)', () => {
    given().when({ type: 'SettleMarket', market_id: BTC, settlement_price: 0, announcement: null, message_id: 'x' }).thenRejects('invalid_settlement_price');
    given().when({ type: 'SettleMarket', market_id: BTC, settlement_price: 5, announcement: null, message_id: 'x' }).thenRejects('market_not_configured');
    given(marketUpserted(BTC), { type: 'MarketSettled', data: { market_id: BTC, settlement_price: 1, canceled_orders: 0, affected_traders: 0, settled_quantity: 0, announcement: settledMessage } })
      .when({ type: 'SettleMarket', market_id: BTC, settlement_price: 5, announcement: null, message_id: 'x' })
      .thenRejects('market_settled');
  });

  it('refuses with overflow when realizing would leave the exact range', () => {
    given(...traded).when({ type: 'SettleMarket', market_id: BTC, settlement_price: Number.MAX_SAFE_INTEGER, announcement: null, message_id: 'x' }).thenRejects('overflow');
  });
});

describe('core: DeleteMarket', () => {
  it('deletes a market without open orders', () => {
    const s = given(marketUpserted(BTC));
    s.when({ type: 'DeleteMarket', market_id: BTC }).then({ type: 'MarketDeleted', data: { market_id: BTC, mark_price: 100 } });
    expect(s.exchange.state.markets.get(BTC)).to.equal(undefined);
  });

  it('refuses while orders rest (409, exact text) and for unknown markets (404)', () => {
    given(...WORLD, orderRested('o', ALICE, 'BUY', 1, 1)).when({ type: 'DeleteMarket', market_id: BTC }).thenRejects('market_has_open_orders', 'cannot delete market with open orders');
    given().when({ type: 'DeleteMarket', market_id: BTC }).thenRejects('market_not_configured');
  });
});
