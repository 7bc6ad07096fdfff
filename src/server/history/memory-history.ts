// The history in memory (STORAGE_BACKEND=in_memory): a HistoryIndex folded beside the state, answering
// at once. It grows with every fill, trade and finished order, as the in-memory log grows with every
// event: the in-memory backend is for development and demonstrations (docs/operations.md says how far it
// goes); a competition keeps its history in PostgreSQL.
import type { Subscription } from 'rxjs';
import { candles, type Candle, type CandleInterval } from '../../projections/candles.ts';
import { compareFills } from '../../projections/fills.ts';
import type { OrderRecord } from '../../projections/books.ts';
import type { ExchangeState } from '../../projections/exchange-state.ts';
import { HistoryIndex } from '../../projections/history/history-index.ts';
import type { OfficialStandingsView } from '../../projections/history/official.ts';
import type { TapePosition, TapeTrade } from '../../projections/history/trade-tape.ts';
import type { AdminMessageView, FillView } from '../../projections/views.ts';
import { pageBackwards } from '../../projections/history/page-backwards.ts';
import type { EarlierOrder, FillPosition, History, HistoryFigures, Page } from './history.ts';

/** Fills handed to the writer at a time. */
const FILL_BATCH = 1000;

export class MemoryHistory implements History {
  readonly index = new HistoryIndex();
  private following: Subscription | null = null;

  follow(state: ExchangeState): Subscription {
    if (this.following !== null) throw new Error('history: follows one state');
    if (state.seq !== 0) throw new Error(`history: an in-memory history follows a state from its start, not from seq ${state.seq}`);
    this.following = this.index.follow(state);
    return this.following;
  }

  async *fills(traderId: string, market: string | undefined): AsyncGenerator<readonly FillView[]> {
    // The list as it is now (a copy: later fills are not this answer's), the fills themselves shared.
    const list = this.index.fills.of(traderId, market);
    for (let i = 0; i < list.length; i += FILL_BATCH) yield list.slice(i, i + FILL_BATCH);
  }

  fillsPage(traderId: string, market: string | undefined, before: FillPosition | null, limit: number): Page<FillView> {
    return pageBackwards(
      this.index.fills.listOf(traderId),
      limit,
      before === null ? null : (f) => compareFills(f, before) < 0,
      market === undefined ? undefined : (f) => f.market === market,
    );
  }

  tapePage(market: string, before: TapePosition | null, limit: number): Page<TapeTrade> {
    const items = this.index.tape.page(market, limit + 1, before ?? undefined);
    const more = items.length > limit;
    if (more) items.pop();
    return { items, more };
  }

  candles(market: string, interval: CandleInterval, fromMicros: number, toMicros: number): Candle[] {
    return candles(this.index.tape.trades(market), interval, fromMicros, toMicros);
  }

  order(orderId: string): OrderRecord | undefined {
    return this.index.orders.get(orderId);
  }

  orderByClientId(traderId: string, clientOrderId: string): OrderRecord | undefined {
    return this.index.orders.byClient(traderId, clientOrderId);
  }

  earlierOrder(traderId: string, clientOrderId: string, state: ExchangeState): EarlierOrder {
    // The index has applied every event the state has.
    return { order: this.index.orders.byClient(traderId, clientOrderId), asOf: state.seq };
  }

  reached(): void {
    // The index has applied every event the state has: nothing to wait for.
  }

  fillsOfOrder(order: OrderRecord): FillView[] {
    return this.index.fillsOfOrder(order);
  }

  messages(limit: number): AdminMessageView[] {
    return this.index.messages.newest(limit);
  }

  standings(): OfficialStandingsView[] {
    return this.index.official.all().slice();
  }

  standing(label: string): OfficialStandingsView | undefined {
    return this.index.official.byLabel(label);
  }

  figures(): HistoryFigures {
    const i = this.index;
    return { backend: 'in_memory', cachedItems: i.fills.count + i.tape.count + i.orders.count + i.messages.count + i.official.all().length };
  }

  async close(): Promise<void> {
    this.following?.unsubscribe();
  }
}
