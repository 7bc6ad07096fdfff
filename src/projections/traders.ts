// Trader accounts: by id, by username and by the hash of their API key (the key itself is never kept).
import type { ExchangeEvent } from '../events/types.ts';
import type { TraderView } from './views.ts';

export class TradersProjection {
  private readonly byId = new Map<string, TraderView>();
  private readonly byName = new Map<string, TraderView>();
  private readonly byKeyHash = new Map<string, TraderView>();

  get count(): number {
    return this.byId.size;
  }

  get(traderId: string): TraderView | undefined {
    return this.byId.get(traderId);
  }

  byUsername(username: string): TraderView | undefined {
    return this.byName.get(username);
  }

  byApiKeyHash(hash: string): TraderView | undefined {
    return this.byKeyHash.get(hash);
  }

  all(): IterableIterator<TraderView> {
    return this.byId.values();
  }

  apply(event: ExchangeEvent): void {
    if (event.type !== 'TraderProvisioned') return;
    this.add({ trader_id: event.data.trader_id, username: event.data.username, api_key_hash: event.data.api_key_hash, created_at: event.time });
  }

  snapshot(): TraderView[] {
    return [...this.byId.values()];
  }

  restore(traders: readonly TraderView[]): void {
    for (const t of traders) this.add(t);
  }

  private add(view: TraderView): void {
    this.byId.set(view.trader_id, view);
    this.byName.set(view.username, view);
    this.byKeyHash.set(view.api_key_hash, view);
  }
}
