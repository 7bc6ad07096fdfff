// Every fill of every trader since the last reset, in the order the API lists them (occurred_at, then
// fill_id): the complete fill history, for where the history lives in memory (the in-memory backend,
// the replay tool, tests). Events arrive in time order, so an insert almost always lands at the end;
// the backwards search only matters for fills that share a timestamp.
import type { ExchangeEvent } from '../../events/types.ts';
import { compareFills, fillView } from '../fills.ts';
import type { FillView } from '../views.ts';

export class FillHistory {
  private readonly byTrader = new Map<string, FillView[]>();
  private total = 0;

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

  traders(): IterableIterator<[string, FillView[]]> {
    return this.byTrader.entries();
  }

  /** `views` are the event's fills as the live state made them (FillsProjection.viewOf), shared. */
  apply(event: ExchangeEvent, views?: (n: number, asMaker: boolean) => FillView): void {
    if (event.type === 'TradingReset') {
      this.byTrader.clear();
      this.total = 0;
      return;
    }
    if (event.type !== 'OrderSubmitted') return;
    const { order, fills } = event.data;
    // Each side its own view (its fee and liquidity); a self-trade once, as the taker.
    for (let i = 0; i < fills.length; i++) {
      this.add(order.trader_id, views === undefined ? fillView(event, i) : views(i, false));
      const maker = (fills[i] as (typeof fills)[number]).maker_trader_id;
      if (maker !== order.trader_id) this.add(maker, views === undefined ? fillView(event, i, true) : views(i, true));
      this.total++;
    }
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
}
