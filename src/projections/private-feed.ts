// Private events of each trader (fills and order states), with a gap-free user_sequence per trader
// derived from the log. Order: per execution the fill (to the taker and to the maker) and the maker's
// order state, then the taker's own order state, as the WebSocket protocol lays out.
import { Subject } from 'rxjs';
import type { OrderStatus } from '../events/types.ts';
import type { BookEffect, BooksProjection } from './books.ts';
import type { FillView, OrderView } from './views.ts';

export type { OrderStatus };

export type PrivateEvent =
  | { readonly type: 'fill'; readonly trader_id: string; readonly user_sequence: number; readonly fill: FillView }
  | { readonly type: 'order_state'; readonly trader_id: string; readonly user_sequence: number; readonly order: OrderView; readonly status: OrderStatus };

export class PrivateFeed {
  readonly events$ = new Subject<PrivateEvent>();
  private readonly sequences = new Map<string, number>();

  constructor(books: BooksProjection, fault: (err: unknown) => void = (err) => {
    throw err;
  }) {
    books.effects$.subscribe((effect) => {
      try {
        this.onEffect(effect);
      } catch (err) {
        fault(err);
      }
    });
  }

  sequence(traderId: string): number {
    return this.sequences.get(traderId) ?? 0;
  }

  allSequences(): IterableIterator<[string, number]> {
    return this.sequences.entries();
  }

  restoreSequences(sequences: Iterable<[string, number]>): void {
    for (const [trader, seq] of sequences) this.sequences.set(trader, seq);
  }

  private next(traderId: string): number {
    const n = (this.sequences.get(traderId) ?? 0) + 1;
    this.sequences.set(traderId, n);
    return n;
  }

  // The sequence always advances (it is part of the state); the message is only built for a listener,
  // so folding a long log with nobody listening (recovery, replay) builds none.
  private fill(traderId: string, fill: FillView): void {
    const user_sequence = this.next(traderId);
    if (this.events$.observed) this.events$.next({ type: 'fill', trader_id: traderId, user_sequence, fill });
  }

  private state(order: OrderView, status: OrderStatus): void {
    const user_sequence = this.next(order.trader_id);
    if (this.events$.observed) this.events$.next({ type: 'order_state', trader_id: order.trader_id, user_sequence, order, status });
  }

  private onEffect(effect: BookEffect): void {
    // A reset is announced to every client as an account resync, not order by order.
    if (effect.event.type === 'TradingReset') return;
    const changes = effect.changes;
    for (let i = 0; i < changes.length; i++) {
      const change = changes[i];
      if (change === undefined) continue;
      switch (change.kind) {
        case 'trade': {
          this.fill(change.taker_trader_id, change.fill);
          if (change.maker_trader_id !== change.taker_trader_id) this.fill(change.maker_trader_id, change.fill);
          // The maker's change precedes its trade in the book effect; its order state follows the fills.
          const makerChange = changes[i - 1];
          if (makerChange !== undefined && makerChange.kind === 'order_removed') this.state(makerChange.order, 'filled');
          else if (makerChange !== undefined && makerChange.kind === 'order_updated') this.state(makerChange.order, 'open');
          break;
        }
        case 'order_updated':
          if (effect.event.type === 'OrderAmended') this.state(change.order, 'open');
          break;
        case 'order_removed':
          if (change.cause === 'canceled' || change.cause === 'settled') this.state(change.order, 'canceled');
          break;
        case 'order_added':
          break;
      }
    }
    if (effect.taker !== null) this.state(effect.taker, effect.taker.status);
  }
}
