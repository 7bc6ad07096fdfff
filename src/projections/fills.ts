// Fills per trader, kept in the order the API lists them (occurred_at, then fill_id). Events arrive in
// time order, so an insert almost always lands at the end; the backwards search only matters for
// fills that share a timestamp.
import type { EventOf, ExchangeEvent } from '../events/types.ts';
import type { FillView } from './views.ts';

export class FillsProjection {
  private readonly byTrader = new Map<string, FillView[]>();
  private total = 0;
  /** The views the last submission made, and its seq: its private feed messages send these very objects. */
  private readonly made: FillView[] = [];
  private madeSeq = -1;

  get count(): number {
    return this.total;
  }

  /** The trader's fills as kept (oldest first), not copied: for readers that only look. */
  listOf(traderId: string): readonly FillView[] {
    return this.byTrader.get(traderId) ?? [];
  }

  of(traderId: string, market?: string): FillView[] {
    const all = this.byTrader.get(traderId) ?? [];
    return market === undefined ? all.slice() : all.filter((f) => f.market === market);
  }

  apply(event: ExchangeEvent): void {
    if (event.type === 'TradingReset') {
      this.byTrader.clear();
      this.total = 0;
      return;
    }
    if (event.type !== 'OrderSubmitted') return;
    const { order, fills } = event.data;
    for (let i = 0; i < fills.length; i++) {
      const view = fillView(event, i);
      const maker = (fills[i] as (typeof fills)[number]).maker_trader_id;
      this.add(order.trader_id, view);
      if (maker !== order.trader_id) this.add(maker, view);
      this.total++;
      // Entries past this event's fills are an earlier one's: viewOf reads only this event's.
      this.made[i] = view;
    }
    this.madeSeq = event.seq;
  }

  /**
   * Fill `n` of the submission `event` as a client sees it: the very object the history keeps when the
   * event is the last submission it applied (read only everywhere), else one built the same way.
   */
  viewOf(event: EventOf<'OrderSubmitted'>, n: number): FillView {
    return (event.seq === this.madeSeq ? this.made[n] : undefined) ?? fillView(event, n);
  }

  private add(traderId: string, fill: FillView): void {
    let list = this.byTrader.get(traderId);
    if (list === undefined) {
      list = [];
      this.byTrader.set(traderId, list);
    }
    let i = list.length;
    while (i > 0 && compareFills(list[i - 1] as FillView, fill) > 0) i--;
    if (i === list.length) list.push(fill);
    else list.splice(i, 0, fill);
  }

  snapshot(): { total: number; by_trader: [string, FillView[]][] } {
    return { total: this.total, by_trader: [...this.byTrader.entries()] };
  }

  restore(s: { total: number; by_trader: readonly (readonly [string, readonly FillView[]])[] }): void {
    this.total = s.total;
    for (const [trader, list] of s.by_trader) this.byTrader.set(trader, list.slice());
  }

  traders(): IterableIterator<[string, FillView[]]> {
    return this.byTrader.entries();
  }
}

export function compareFills(a: FillView, b: FillView): number {
  if (a.occurred_at !== b.occurred_at) return a.occurred_at < b.occurred_at ? -1 : 1;
  return a.fill_id < b.fill_id ? -1 : a.fill_id > b.fill_id ? 1 : 0;
}

/** Fill `n` of a submission, as the fills API, the private feed and the submit reply show it. */
function fillView(event: EventOf<'OrderSubmitted'>, n: number): FillView {
  const { order, fills } = event.data;
  const f = fills[n];
  if (f === undefined) throw new Error(`fills: seq ${event.seq} has no fill ${n}`);
  return { fill_id: f.fill_id, market: order.market, maker_order_id: f.maker_order_id, taker_order_id: order.id, price: f.price, quantity: f.quantity, occurred_at: event.time };
}
