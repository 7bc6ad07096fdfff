// Private events of each trader (fills and order states), with a gap-free user_sequence per trader
// derived from the log. Order: per execution the fill (to the taker and to the maker) and the maker's
// order state, then the taker's own order state, as the WebSocket protocol lays out. The sequences are
// state and always advance; the messages are built only for a listener, so folding a long log with
// nobody listening (recovery, replay) builds none.
import { EventSubject } from '../events/event-subject.ts';
import type { OrderStatus } from '../events/types.ts';
import { CAUSE_CANCELED, CAUSE_SETTLED, ORDER_REMOVED, ORDER_UPDATED, TRADE, type BookEffect, type BookEffectListener } from './book-effect.ts';
import type { BooksProjection } from './books.ts';
import type { FillsProjection } from './fills.ts';
import { NONE } from './orders/order-store.ts';
import type { FillView, OrderView } from './views.ts';

export type { OrderStatus };

export type PrivateEvent =
  | { readonly type: 'fill'; readonly trader_id: string; readonly user_sequence: number; readonly fill: FillView }
  | { readonly type: 'order_state'; readonly trader_id: string; readonly user_sequence: number; readonly order: OrderView; readonly status: OrderStatus };

export class PrivateFeed implements BookEffectListener {
  readonly events$ = new EventSubject<PrivateEvent>();
  /** Per trader (the books' interned index): the last user_sequence, 0 for none yet. */
  private sequences: number[] = [];
  private readonly books: BooksProjection;
  private readonly fills: FillsProjection;
  private readonly fault: (err: unknown) => void;

  /** `fills` is applied before the books: a fill message carries the history's own view of the fill. */
  constructor(
    books: BooksProjection,
    fills: FillsProjection,
    fault: (err: unknown) => void = (err) => {
      throw err;
    },
  ) {
    this.books = books;
    this.fills = fills;
    this.fault = fault;
    books.listen(this);
  }

  sequence(traderId: string): number {
    const trader = this.books.traderNames.indexOf(traderId);
    return trader === NONE ? 0 : (this.sequences[trader] ?? 0);
  }

  *allSequences(): IterableIterator<[string, number]> {
    for (let trader = 0; trader < this.sequences.length; trader++) {
      const seq = this.sequences[trader];
      if (seq !== undefined && seq > 0) yield [this.books.traderNames.nameOf(trader), seq];
    }
  }

  restoreSequences(sequences: Iterable<[string, number]>): void {
    for (const [traderId, seq] of sequences) this.sequences[this.books.traderNames.intern(traderId)] = seq;
  }

  bookEffect(effect: BookEffect): void {
    try {
      this.onEffect(effect);
    } catch (err) {
      this.fault(err);
    }
  }

  private next(trader: number): number {
    const n = (this.sequences[trader] ?? 0) + 1;
    this.sequences[trader] = n;
    return n;
  }

  private fill(trader: number, fill: FillView | null): void {
    const user_sequence = this.next(trader);
    if (fill !== null) this.events$.next({ type: 'fill', trader_id: this.books.traderNames.nameOf(trader), user_sequence, fill });
  }

  private state(slot: number, status: OrderStatus, listening: boolean): void {
    const user_sequence = this.next(this.books.orders.trader(slot));
    if (listening) this.events$.next({ type: 'order_state', trader_id: this.books.orders.traderId(slot), user_sequence, order: this.books.orders.view(slot), status });
  }

  private onEffect(effect: BookEffect): void {
    const event = effect.event;
    // A reset is announced to every client as an account resync, not order by order.
    if (event === null || event.type === 'TradingReset') return;
    const listening = this.events$.observed;
    const orders = this.books.orders;
    for (let i = 0; i < effect.size; i++) {
      const slot = effect.slots[i] as number;
      switch (effect.kinds[i]) {
        case TRADE: {
          if (event.type !== 'OrderSubmitted') throw new Error(`private feed: a trade in ${event.type}`);
          const n = effect.details[i] as number;
          if (event.data.fills[n] === undefined) throw new Error(`private feed: a trade without its fill at seq ${event.seq}`);
          const taker = orders.trader(effect.taker);
          const maker = orders.trader(slot);
          // Each side its own view of the fill (its fee and liquidity).
          this.fill(taker, listening ? this.fills.viewOf(event, n) : null);
          if (maker !== taker) this.fill(maker, listening ? this.fills.viewOf(event, n, true) : null);
          // The maker's change precedes its trade in the book effect; its order state follows the fills.
          const before = i > 0 ? (effect.kinds[i - 1] as number) : -1;
          if (before === ORDER_REMOVED) this.state(slot, 'filled', listening);
          else if (before === ORDER_UPDATED) this.state(slot, 'open', listening);
          break;
        }
        case ORDER_UPDATED:
          if (event.type === 'OrderAmended') this.state(slot, 'open', listening);
          break;
        case ORDER_REMOVED: {
          const cause = effect.details[i] as number;
          if (cause === CAUSE_CANCELED || cause === CAUSE_SETTLED) this.state(slot, 'canceled', listening);
          break;
        }
        default:
          break;
      }
    }
    if (effect.taker !== NONE) this.state(effect.taker, orders.status(effect.taker), listening);
  }
}
