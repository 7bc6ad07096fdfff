// Every order finished since the last reset, by id and by each trader's client order ids: the complete
// order history, for where the history lives in memory (the in-memory backend, the replay tool, tests).
// An order finishes once and never changes again, so a record is kept as it came.
import type { ExchangeEvent } from '../../events/types.ts';
import type { FinishedOrder } from '../books.ts';

export class OrderHistory {
  private readonly byId = new Map<string, FinishedOrder>();
  private readonly byClientId = new Map<string, Map<string, FinishedOrder>>();

  get count(): number {
    return this.byId.size;
  }

  get(id: string): FinishedOrder | undefined {
    return this.byId.get(id);
  }

  byClient(traderId: string, clientOrderId: string): FinishedOrder | undefined {
    return this.byClientId.get(traderId)?.get(clientOrderId);
  }

  /** Every finished order, in the order they finished. */
  all(): IterableIterator<FinishedOrder> {
    return this.byId.values();
  }

  add(order: FinishedOrder): void {
    this.byId.set(order.id, order);
    const cid = order.terms.client_order_id;
    if (cid === null) return;
    let ids = this.byClientId.get(order.trader_id);
    if (ids === undefined) {
      ids = new Map();
      this.byClientId.set(order.trader_id, ids);
    }
    ids.set(cid, order);
  }

  /** A reset clears the order history (after the orders it canceled were added). */
  apply(event: ExchangeEvent): void {
    if (event.type !== 'TradingReset') return;
    this.byId.clear();
    this.byClientId.clear();
  }
}
