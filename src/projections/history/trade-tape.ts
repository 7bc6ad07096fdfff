// The public trade tape: every execution per market, oldest first, with the taker's side and the seq of
// the command that made it. Kept across resets (it is market history, like any exchange's tape) and
// dropped with the market when the market is deleted (a fresh market under the same id starts a new
// tape). Pages run newest first from a position (seq, n): n is the execution's index in its command.
import type { ExchangeEvent, Side } from '../../events/types.ts';
import { pageBackwards } from './page-backwards.ts';

export interface TapeTrade {
  readonly trade_id: string;
  readonly price: number;
  readonly quantity: number;
  readonly taker_side: Side;
  readonly occurred_at: string;
  readonly seq: number;
  /** Index of the execution within its command's fills. */
  readonly n: number;
}

/** A trade as GET /api/v1/markets/{id}/trades and the WS `trades` channel show it. */
export type TradeView = Omit<TapeTrade, 'n'>;

export interface TapePosition {
  readonly seq: number;
  readonly n: number;
}

export function tradeView(t: TapeTrade): TradeView {
  return { trade_id: t.trade_id, price: t.price, quantity: t.quantity, taker_side: t.taker_side, occurred_at: t.occurred_at, seq: t.seq };
}

function before(t: TapeTrade, p: TapePosition): boolean {
  return t.seq < p.seq || (t.seq === p.seq && t.n < p.n);
}

export class TradeTape {
  private readonly byMarket = new Map<string, TapeTrade[]>();

  /** Every market's trades, oldest first. */
  markets(): IterableIterator<[string, TapeTrade[]]> {
    return this.byMarket.entries();
  }

  trades(market: string): readonly TapeTrade[] {
    return this.byMarket.get(market) ?? [];
  }

  get count(): number {
    let n = 0;
    for (const list of this.byMarket.values()) n += list.length;
    return n;
  }

  /** Up to `limit` trades strictly older than `from` (or the newest ones), newest first. */
  page(market: string, limit: number, from?: TapePosition): TapeTrade[] {
    const list = this.byMarket.get(market);
    if (list === undefined) return [];
    // Every trade before `from` is older: the same rule as the other lists' pages.
    return pageBackwards(list, limit, from === undefined ? null : (t) => before(t, from)).items;
  }

  apply(event: ExchangeEvent): void {
    if (event.type === 'OrderSubmitted') {
      const { order, fills } = event.data;
      if (fills.length === 0) return;
      let list = this.byMarket.get(order.market);
      if (list === undefined) {
        list = [];
        this.byMarket.set(order.market, list);
      }
      for (let n = 0; n < fills.length; n++) {
        const f = fills[n] as (typeof fills)[number];
        list.push({ trade_id: f.fill_id, price: f.price, quantity: f.quantity, taker_side: order.side, occurred_at: event.time, seq: event.seq, n });
      }
    } else if (event.type === 'MarketDeleted') {
      this.byMarket.delete(event.data.market_id);
    }
  }

  snapshot(): [string, TapeTrade[]][] {
    return [...this.byMarket.entries()];
  }

  restore(markets: readonly (readonly [string, readonly TapeTrade[]])[]): void {
    for (const [market, list] of markets) this.byMarket.set(market, list.slice());
  }
}
