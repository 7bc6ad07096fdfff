// Trader accounts: by id and by username. Each record names the hash of the trader's primary API key
// (the key itself is never kept); every key that authenticates, the primary one included, is found
// through the keys projection (api-keys.ts).
import type { ExchangeEvent } from '../events/types.ts';
import type { TraderView } from './views.ts';

export class TradersProjection {
  private readonly byId = new Map<string, TraderView>();
  private readonly byName = new Map<string, TraderView>();

  get count(): number {
    return this.byId.size;
  }

  get(traderId: string): TraderView | undefined {
    return this.byId.get(traderId);
  }

  byUsername(username: string): TraderView | undefined {
    return this.byName.get(username);
  }

  all(): IterableIterator<TraderView> {
    return this.byId.values();
  }

  apply(event: ExchangeEvent): void {
    switch (event.type) {
      case 'TraderProvisioned':
        this.add({ trader_id: event.data.trader_id, username: event.data.username, api_key_hash: event.data.api_key_hash, created_at: event.time });
        break;
      case 'TradersProvisioned':
        for (const t of event.data.traders) this.add({ trader_id: t.trader_id, username: t.username, api_key_hash: t.api_key_hash, created_at: event.time });
        break;
      case 'ApiKeyRotated':
        this.add({ ...this.must(event.data.trader_id), api_key_hash: event.data.api_key_hash });
        break;
      case 'TraderDisabled':
        this.add({ ...this.must(event.data.trader_id), disabled: true });
        break;
      case 'TraderEnabled': {
        const { disabled: _disabled, ...enabled } = this.must(event.data.trader_id);
        this.add(enabled);
        break;
      }
      default:
        break;
    }
  }

  private must(traderId: string): TraderView {
    const t = this.byId.get(traderId);
    if (t === undefined) throw new Error(`traders: unknown trader ${traderId}`);
    return t;
  }

  restore(traders: readonly TraderView[]): void {
    for (const t of traders) this.add(t);
  }

  private add(view: TraderView): void {
    this.byId.set(view.trader_id, view);
    this.byName.set(view.username, view);
  }
}
