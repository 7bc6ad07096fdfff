// Fills in the live state: how many since the last reset (a reset's event records it), and the views of
// the last submission's fills, which its private feed messages and its reply carry (one object per fill
// and side: each side sees its own fee and liquidity).
// The fills themselves are history (fill-history.ts keeps them in memory where the history lives in the
// process; src/server/history/ serves them).
import type { EventOf, ExchangeEvent } from '../events/types.ts';
import { feeValue } from './fee-math.ts';
import type { FillView } from './views.ts';

export class FillsProjection {
  private total = 0;
  /**
   * The views the last submission made (the taker's and the makers'), and its seq: its private feed
   * messages send these very objects.
   */
  private readonly takerViews: FillView[] = [];
  private readonly makerViews: FillView[] = [];
  private madeSeq = -1;
  /** The last submission that made fills. */
  private lastEvent: EventOf<'OrderSubmitted'> | null = null;

  /** Fills since the last reset. */
  get count(): number {
    return this.total;
  }

  apply(event: ExchangeEvent): void {
    if (event.type === 'TradingReset') {
      this.total = 0;
      return;
    }
    if (event.type !== 'OrderSubmitted') return;
    const n = event.data.fills.length;
    this.total += n;
    // Built when asked (viewOf): folding a log with nobody listening builds none.
    this.madeSeq = -1;
    this.takerViews.length = 0;
    this.makerViews.length = 0;
    this.lastEvent = n > 0 ? event : null;
  }

  /**
   * Fill `n` of the submission `event` as its taker (or, `asMaker`, its maker) sees it: for the last
   * submission applied, one object per fill and side whoever asks (its feed messages and its reply share
   * them, read only), else one built anew.
   */
  viewOf(event: EventOf<'OrderSubmitted'>, n: number, asMaker = false): FillView {
    if (event !== this.lastEvent) return fillView(event, n, asMaker);
    if (this.madeSeq !== event.seq) {
      this.madeSeq = event.seq;
      this.takerViews.length = 0;
      this.makerViews.length = 0;
    }
    const views = asMaker ? this.makerViews : this.takerViews;
    return (views[n] ??= fillView(event, n, asMaker));
  }

  restore(s: { readonly total: number }): void {
    this.total = s.total;
  }
}

export function compareFills(a: Pick<FillView, 'occurred_at' | 'fill_id'>, b: Pick<FillView, 'occurred_at' | 'fill_id'>): number {
  if (a.occurred_at !== b.occurred_at) return a.occurred_at < b.occurred_at ? -1 : 1;
  return a.fill_id < b.fill_id ? -1 : a.fill_id > b.fill_id ? 1 : 0;
}

/**
 * Fill `n` of a submission as its taker (or, `asMaker`, its maker) sees it, as the fills API, the private
 * feed and the submit reply show it. A trader whose order met its own sees the fill once, as the taker,
 * paying both sides' fees.
 */
export function fillView(event: EventOf<'OrderSubmitted'>, n: number, asMaker = false): FillView {
  const { order, fills } = event.data;
  const f = fills[n];
  if (f === undefined) throw new Error(`fills: seq ${event.seq} has no fill ${n}`);
  const maker = asMaker && f.maker_trader_id !== order.trader_id;
  return {
    fill_id: f.fill_id,
    market: order.market,
    maker_order_id: f.maker_order_id,
    taker_order_id: order.id,
    price: f.price,
    quantity: f.quantity,
    occurred_at: event.time,
    fee: feeValue(sideFee(f.maker_fee_e4 ?? 0, f.taker_fee_e4 ?? 0, maker, f.maker_trader_id === order.trader_id)),
    liquidity: maker ? 'maker' : 'taker',
  };
}

/** The fee one side of a fill pays, in ten-thousandths: the maker's, the taker's, or both for a self-trade. */
export function sideFee(makerFee: number, takerFee: number, asMaker: boolean, selfTrade: boolean): number {
  if (selfTrade) return makerFee + takerFee;
  return asMaker ? makerFee : takerFee;
}
