// Markets and the global trading control.
import type { ExchangeEvent, MarketDefinition } from '../events/types.ts';
import { Interner } from '../events/interner.ts';
import { effectiveRules } from './market-rules.ts';
import type { ControlsView, MarketView } from './views.ts';

export class MarketsProjection {
  private readonly byId = new Map<string, MarketView>();
  /** The same markets by interned id (the books' names), for the checks of every order. */
  private readonly byIndex: (MarketView | undefined)[] = [];
  private readonly names: Interner;
  private controlsView: ControlsView = { trading_enabled: true, updated_at: '1970-01-01T00:00:00.000000Z' };
  private sortedCache: MarketView[] | null = null;

  constructor(names = new Interner()) {
    this.names = names;
  }

  get controls(): ControlsView {
    return this.controlsView;
  }

  get(marketId: string): MarketView | undefined {
    return this.byId.get(marketId);
  }

  /** A market by interned id (-1: an id never seen, so no market). */
  at(market: number): MarketView | undefined {
    return market < 0 ? undefined : this.byIndex[market];
  }

  /** All markets by market_id. */
  list(): MarketView[] {
    this.sortedCache ??= [...this.byId.values()].sort((a, b) => (a.market_id < b.market_id ? -1 : a.market_id > b.market_id ? 1 : 0));
    return this.sortedCache;
  }

  apply(event: ExchangeEvent): void {
    switch (event.type) {
      case 'MarketUpserted':
        this.upsert(event.data.market, event.time);
        break;
      case 'ConfigLoaded':
        for (const m of event.data.markets) this.upsert(m, event.time);
        if (event.data.trading_enabled !== null) this.controlsView = { trading_enabled: event.data.trading_enabled, updated_at: event.time };
        break;
      case 'MarketPatched': {
        const current = this.byId.get(event.data.market_id);
        if (current === undefined) return;
        const c = event.data.changes;
        this.set({
          ...current,
          display_name: c.display_name ?? current.display_name,
          tick_size: c.tick_size ?? current.tick_size,
          min_order_quantity: c.min_order_quantity ?? current.min_order_quantity,
          reference_price: c.reference_price ?? current.reference_price,
          status: c.enabled === undefined ? current.status : c.enabled ? 'enabled' : 'disabled',
          maker_fee_bps: c.maker_fee_bps ?? current.maker_fee_bps,
          taker_fee_bps: c.taker_fee_bps ?? current.taker_fee_bps,
          position_limit: c.position_limit ?? current.position_limit,
          // null lifts the cap: absent and null differ here.
          max_open_orders: c.max_open_orders === undefined ? current.max_open_orders : c.max_open_orders,
          updated_at: event.time,
        });
        break;
      }
      case 'MarketSettled': {
        const current = this.byId.get(event.data.market_id);
        if (current === undefined) return;
        this.set({ ...current, status: 'settled', settlement_price: event.data.settlement_price, updated_at: event.time });
        break;
      }
      case 'MarketDeleted': {
        this.byId.delete(event.data.market_id);
        const m = this.names.indexOf(event.data.market_id);
        if (m >= 0) this.byIndex[m] = undefined;
        this.sortedCache = null;
        break;
      }
      case 'TradingStarted':
        this.controlsView = { trading_enabled: true, updated_at: event.time };
        break;
      case 'TradingStopped':
        this.controlsView = { trading_enabled: false, updated_at: event.time };
        break;
      default:
        break;
    }
  }

  private upsert(def: MarketDefinition, time: string): void {
    const current = this.byId.get(def.market_id);
    this.set({
      market_id: def.market_id,
      display_name: def.display_name,
      base_asset: def.base_asset,
      quote_asset: def.quote_asset,
      tick_size: def.tick_size,
      min_order_quantity: def.min_order_quantity,
      reference_price: def.reference_price,
      settlement_price: null,
      status: def.enabled ? 'enabled' : 'disabled',
      created_at: current?.created_at ?? time,
      updated_at: time,
      ...effectiveRules(def),
    });
  }

  restore(s: { controls: ControlsView; markets: readonly MarketView[] }): void {
    this.controlsView = s.controls;
    for (const m of s.markets) this.set(m);
  }

  private set(view: MarketView): void {
    this.byId.set(view.market_id, view);
    this.byIndex[this.names.intern(view.market_id)] = view;
    this.sortedCache = null;
  }
}
