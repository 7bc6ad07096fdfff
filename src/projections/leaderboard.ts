// The leaderboard, marked as the specification says, recomputed at most once per change of state:
// hundreds of bots poll it, and between two events every one of them gets the same cached rows.
import type { BooksProjection } from './books.ts';
import type { MarketsProjection } from './markets.ts';
import { afterFees } from './fee-math.ts';
import { unrealized } from './position-math.ts';
import type { PositionsProjection } from './positions.ts';
import type { TradersProjection } from './traders.ts';
import type { LeaderboardRow } from './views.ts';

export class Leaderboard {
  private cachedAt = -1;
  private rows: LeaderboardRow[] = [];
  private readonly traders: TradersProjection;
  private readonly positions: PositionsProjection;
  private readonly markets: MarketsProjection;
  private readonly books: BooksProjection;

  constructor(traders: TradersProjection, positions: PositionsProjection, markets: MarketsProjection, books: BooksProjection) {
    this.traders = traders;
    this.positions = positions;
    this.markets = markets;
    this.books = books;
  }

  /**
   * The price positions in a market are marked at: the settlement price once settled; else the mid of
   * best bid and ask; else the one side there is; else the reference price; else the last trade; else
   * 0. A deleted market keeps the mark it had when it was deleted. Any price common to all traders of a
   * market keeps the marked PnL summing to zero, since their net positions do.
   */
  markPrice(market: string): number {
    const m = this.markets.get(market);
    if (m === undefined) return this.positions.frozenMark(market) ?? 0;
    return liveMark(m.settlement_price, this.books.book(market)?.bestBid ?? null, this.books.book(market)?.bestAsk ?? null, m.reference_price, this.positions.lastTradePrice(market));
  }

  /** Rows of every trader, ranked; computed once per `seq`. */
  at(seq: number): readonly LeaderboardRow[] {
    if (seq !== this.cachedAt) {
      this.rows = this.compute();
      this.cachedAt = seq;
    }
    return this.rows;
  }

  private compute(): LeaderboardRow[] {
    const marks = new Map<string, number>();
    const rows: Omit<LeaderboardRow, 'rank'>[] = [];
    for (const trader of this.traders.all()) {
      let realizedBeforeFees = 0;
      // Fees in ten-thousandths, summed as integers and taken off once (fee-math.ts).
      let fees = 0;
      let open = 0;
      let gross = 0;
      for (const record of this.positions.recordsOf(trader.trader_id)) {
        realizedBeforeFees += record.values.realized;
        fees += record.values.fees;
        if (record.values.net === 0) continue;
        let mark = marks.get(record.market);
        if (mark === undefined) {
          mark = this.markPrice(record.market);
          marks.set(record.market, mark);
        }
        open += unrealized(record.values, mark);
        gross += Math.abs(record.values.net) * mark;
      }
      const realized = afterFees(realizedBeforeFees, fees);
      const row = { trader_id: trader.trader_id, username: trader.username, net_pnl: realized + open, realized_pnl: realized, unrealized_pnl: open, gross_exposure: gross };
      rows.push(trader.disabled === true ? { ...row, disabled: true } : row);
    }
    rows.sort(byStanding);
    return rows.map((r, i) => ({ rank: i + 1, ...r }));
  }
}

/** The leaderboard's order: marked net PnL, highest first; ties by username, then trader_id. */
export function byStanding(a: { readonly net_pnl: number; readonly username: string; readonly trader_id: string }, b: { readonly net_pnl: number; readonly username: string; readonly trader_id: string }): number {
  return b.net_pnl - a.net_pnl || (a.username < b.username ? -1 : a.username > b.username ? 1 : 0) || (a.trader_id < b.trader_id ? -1 : a.trader_id > b.trader_id ? 1 : 0);
}

export function liveMark(settlement: number | null, bid: number | null, ask: number | null, reference: number | null, lastTrade: number | null): number {
  if (settlement !== null) return settlement;
  if (bid !== null && ask !== null) return (bid + ask) / 2;
  if (bid !== null) return bid;
  if (ask !== null) return ask;
  return reference ?? lastTrade ?? 0;
}
