// The history: what the exchange did and no longer needs to match, risk-check or feed anything, kept
// outside the live state (docs/architecture.md, "Live state and history"): orders finished since the
// last reset, fills since the last reset, every market's trade tape and its closed candle minutes,
// operator messages, official standings. Each persistence backend keeps it where it keeps the log: in
// memory (memory-history.ts) or in PostgreSQL (postgres-history.ts). A reader may answer at once or
// later (a database query), so every answer is a Maybe; readers combine it with the live state (open
// and recently finished orders are the books').
import type { Subscription } from 'rxjs';
import type { OrderRecord } from '../../projections/books.ts';
import type { Candle, CandleInterval } from '../../projections/candles.ts';
import type { ExchangeState } from '../../projections/exchange-state.ts';
import type { OfficialStandingsView } from '../../projections/history/official.ts';
import type { TapePosition, TapeTrade } from '../../projections/history/trade-tape.ts';
import type { AdminMessageView, FillView } from '../../projections/views.ts';

/** An answer now, or once a query comes back. */
export type Maybe<T> = T | Promise<T>;

/** `f` of an answer, now if it is here, else once it comes. */
export function then<T, R>(value: Maybe<T>, f: (value: T) => R): Maybe<R> {
  return value instanceof Promise ? value.then(f) : f(value);
}

/** A fill's place in a trader's list: fills are listed by occurred_at, then fill_id. */
export interface FillPosition {
  readonly occurred_at: string;
  readonly fill_id: string;
}

export interface Page<T> {
  readonly items: T[];
  /** Whether an older item follows the page. */
  readonly more: boolean;
}

/** Figures for /metrics: what the history holds in this process (caches, or all of it in memory). */
export interface HistoryFigures {
  readonly backend: 'in_memory' | 'postgres';
  /** Items held in memory: fills, trades, finished orders, messages, closed minutes, pending rows. */
  readonly cachedItems: number;
}

export interface History {
  /**
   * Follows the state from its head on: what it applies from now becomes history. Before: the history
   * must already hold everything up to the head (in memory: the state starts empty; PostgreSQL: the
   * database does, written with the events).
   */
  follow(state: ExchangeState): Subscription;
  /**
   * Every fill of the trader since the last reset (of one market), oldest first, in batches as they are
   * read: a trader's whole history is never held at once (the route writes it as it comes).
   */
  fills(traderId: string, market: string | undefined): AsyncIterable<readonly FillView[]>;
  /** Up to `limit` of the trader's fills older than `before` (or the newest), newest first. */
  fillsPage(traderId: string, market: string | undefined, before: FillPosition | null, limit: number): Maybe<Page<FillView>>;
  /** Up to `limit` trades of the market's tape older than `before` (or the newest), newest first. */
  tapePage(market: string, before: TapePosition | null, limit: number): Maybe<Page<TapeTrade>>;
  /** The market's candles of [from, to), oldest first. */
  candles(market: string, interval: CandleInterval, fromMicros: number, toMicros: number): Maybe<Candle[]>;
  /** An order finished since the last reset, by id (open and recently finished ones are the books'). */
  order(orderId: string): Maybe<OrderRecord | undefined>;
  /** The trader's order finished since the last reset with this client order id. */
  orderByClientId(traderId: string, clientOrderId: string): Maybe<OrderRecord | undefined>;
  /** orderByClientId, with the seq it is true as of (a submission's duplicate check). */
  earlierOrder(traderId: string, clientOrderId: string, state: ExchangeState): Maybe<EarlierOrder>;
  /**
   * Once the history reads every order finished up to `seq` (in memory: at once), or after `waitMs` if
   * it does not by then: what a stale earlierOrder waits for before it looks again.
   */
  reached(seq: number, waitMs: number): Maybe<void>;
  /** The fills of one order (as taker or maker), in the trader's order of fills. */
  fillsOfOrder(order: OrderRecord): Maybe<FillView[]>;
  /** The `limit` newest operator messages, newest first. */
  messages(limit: number): Maybe<AdminMessageView[]>;
  /** Every official standings frozen, oldest first. */
  standings(): Maybe<OfficialStandingsView[]>;
  /** The official standings frozen under this label. */
  standing(label: string): Maybe<OfficialStandingsView | undefined>;
  figures(): HistoryFigures;
  close(): Promise<void>;
}

/**
 * What the history knows of the trader's earlier order with a client order id: the order (or none), as
 * of every order finished up to seq `asOf`. An order finished later is in the books (their window of
 * recently finished orders) unless the books let go of it since: then the answer is stale (see
 * order-lookups.ts, earlierOrder).
 */
export interface EarlierOrder {
  readonly order: OrderRecord | undefined;
  readonly asOf: number;
  /**
   * The books held an order with this client order id when it was looked up (order undefined, asOf
   * Infinity): decide finds it there, as long as they still hold it when the command is built.
   */
  readonly inBooks?: { readonly traderId: string; readonly clientOrderId: string };
}
