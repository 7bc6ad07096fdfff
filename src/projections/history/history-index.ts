// The whole history in memory: every fill since the last reset per trader, every market's trade tape,
// every operator message, the official standings, every order finished since the last reset. It is
// folded from what a state applies (its events, and the orders its books finish), beside the state,
// which keeps only the live state. The in-memory backend serves the history from it, the replay tool
// answers from it, and the state hash of logs written before the live state and the history were
// separated (legacy-state-hash.ts) needs it; with PostgreSQL the history lives in the database
// (src/server/history/) and nothing in the process holds it whole.
import type { Subscription } from 'rxjs';
import type { ExchangeEvent } from '../../events/types.ts';
import type { OrderRecord } from '../books.ts';
import type { ExchangeState } from '../exchange-state.ts';
import type { FillView } from '../views.ts';
import { FillHistory } from './fill-history.ts';
import { MessagesProjection } from './messages.ts';
import { OfficialStandings } from './official.ts';
import { OrderHistory } from './order-history.ts';
import { TradeTape } from './trade-tape.ts';

export class HistoryIndex {
  readonly fills = new FillHistory();
  readonly tape = new TradeTape();
  readonly messages = new MessagesProjection();
  readonly official = new OfficialStandings();
  readonly orders = new OrderHistory();

  /**
   * Follows a state from its current head on: every event it applies and every order its books finish.
   * The state must be at the start of its log (or the history already hold what came before).
   */
  follow(state: ExchangeState): Subscription {
    const events = state.events$.subscribe((event) => this.apply(event, event.type === 'OrderSubmitted' ? (n, asMaker) => state.fills.viewOf(event, n, asMaker) : undefined));
    // Books that keep every order since the last reset hold the order history themselves.
    if (state.books.orders.recent === Number.POSITIVE_INFINITY) return events;
    // Orders an event finishes are told while the state applies it, before the event reaches the
    // subscriber above (the state's own subscription runs first), so a reset clears them after.
    events.add(state.books.finished$.subscribe((order) => this.orders.add(order)));
    return events;
  }

  /** One event's history (the orders it finished come through `orders.add`). */
  apply(event: ExchangeEvent, views?: (n: number, asMaker: boolean) => FillView): void {
    this.fills.apply(event, views);
    this.tape.apply(event);
    this.messages.apply(event);
    this.official.apply(event);
    this.orders.apply(event);
  }

  /**
   * Every order finished since the last reset: the books' own when they keep every order (they tell of
   * none then), else the ones they told of as they let them go.
   */
  *finishedOrders(state: ExchangeState): IterableIterator<OrderRecord> {
    if (state.books.orders.recent !== Number.POSITIVE_INFINITY) {
      yield* this.orders.all();
      return;
    }
    for (const order of state.books.allOrders()) if (order.status !== 'open') yield order;
  }

  /** The fills of one order, as taker or maker, in the trader's order of fills. */
  fillsOfOrder(order: Pick<OrderRecord, 'id' | 'trader_id' | 'market'>): FillView[] {
    return this.fills.listOf(order.trader_id).filter((f) => f.market === order.market && (f.taker_order_id === order.id || f.maker_order_id === order.id));
  }
}
