// Every projection of the exchange's live state, wired to one RxJS stream of events. Subscriptions run
// in the order they are made, synchronously, so by the time `events$.next(e)` returns every projection
// has applied `e`, and the feeds derived from the book have published what it changed.
//
// The live state is what matching, risk and the feeds need: markets, traders, the books (open orders and
// a window of recently finished ones), positions and PnL, the leaderboard, sequences, each market's
// session figures and current candle minute. History (finished orders, fills, the trade tape, closed
// candle minutes, messages, official standings) is not kept here: the events and the records the state
// emits as it applies them (books.finished$, candleMinutes.closed$) are folded into it wherever it lives
// (history/history-index.ts in memory; PostgreSQL, src/server/history/). So the state's size follows
// the live state, not the number of events ever applied (docs/architecture.md, "Live state and history").
import { EventSubject } from '../events/event-subject.ts';
import type { ExchangeEvent, SchemaVersion } from '../events/types.ts';
import { schemaOf, upcast, type RecordedEvent } from '../events/upcasters/upcast.ts';
import { BooksProjection } from './books.ts';
import { CandleMinutes } from './candle-minutes.ts';
import { Interner } from '../events/interner.ts';
import { FillsProjection } from './fills.ts';
import { HistoryBounds } from './history-bounds.ts';
import { Leaderboard } from './leaderboard.ts';
import { MarketDataFeed } from './market-data.ts';
import { MarketsProjection } from './markets.ts';
import { OfficialLabels } from './official-labels.ts';
import { ScheduleProjection } from './schedule.ts';
import { PositionsProjection } from './positions.ts';
import { PrivateFeed } from './private-feed.ts';
import { SessionStats } from './session-stats.ts';
import { TradersProjection } from './traders.ts';
import { ApiKeysProjection } from './api-keys.ts';

export interface ExchangeStateOptions {
  /** How many recent deltas per market are kept for resubscription with last_sequence. */
  readonly deltaRing?: number;
  /**
   * How many finished orders the books keep (orders/order-store.ts, RECENT_ORDERS by default; Infinity:
   * every order since the last reset, as the in-memory backend keeps them).
   */
  readonly recentOrders?: number;
}

export class ExchangeState {
  readonly events$ = new EventSubject<ExchangeEvent>();
  /** Small integer names of traders and markets, shared by the projections that index by them. */
  readonly traderNames = new Interner();
  readonly marketNames = new Interner();
  readonly traders = new TradersProjection();
  /** Every key that authenticates a trader, with its scope and expiry. */
  readonly keys = new ApiKeysProjection();
  readonly markets = new MarketsProjection(this.marketNames);
  readonly books: BooksProjection;
  readonly positions = new PositionsProjection(this.traderNames, this.marketNames);
  readonly fills = new FillsProjection();
  readonly sessionStats = new SessionStats(this.marketNames);
  readonly candleMinutes = new CandleMinutes(this.marketNames);
  readonly schedule = new ScheduleProjection();
  readonly official = new OfficialLabels();
  readonly bounds = new HistoryBounds();
  readonly marketData: MarketDataFeed;
  readonly privateFeed: PrivateFeed;
  readonly leaderboard: Leaderboard;
  private head = 0;
  /**
   * The first error a projection threw. RxJS would report it later, asynchronously, leaving the caller
   * to carry on with a half-applied event; it is caught here instead, rethrown by apply, and from then
   * on every apply refuses: a state that may have diverged from its log must not serve as if it had not.
   */
  private fault: Error | null = null;
  private headTime = '';
  private schemaVersion: SchemaVersion = 1;

  constructor(options: ExchangeStateOptions = {}) {
    const fault = (err: unknown): void => {
      this.fault ??= err instanceof Error ? err : new Error(String(err));
    };
    this.books = new BooksProjection(this.traderNames, this.marketNames, options.recentOrders);
    this.marketData = new MarketDataFeed(this.books, options.deltaRing, fault);
    this.privateFeed = new PrivateFeed(this.books, this.fills, fault);
    this.leaderboard = new Leaderboard(this.traders, this.positions, this.markets, this.books);
    // One subscription applies the projections in a fixed order (cheaper than one subscription each on
    // the hot path). Positions before books: the books' effect makes the feeds speak, and a listener
    // that reads positions while handling a fill must see them already updated.
    this.events$.subscribe((e) => {
      this.head = e.seq;
      this.headTime = e.time;
      try {
        switch (e.type) {
          // Trading events, nearly all of a log, reach only the projections they change (the others
          // ignore them); the order is the same as for every other event.
          case 'OrderSubmitted':
            if (e.data.fills.length > 0) {
              this.positions.apply(e);
              this.fills.apply(e);
              this.sessionStats.apply(e);
              this.candleMinutes.apply(e);
            }
            this.books.apply(e);
            break;
          case 'OrderCanceled':
          case 'OrderAmended':
            this.books.apply(e);
            break;
          default:
            this.traders.apply(e);
            this.keys.apply(e);
            this.markets.apply(e);
            this.positions.apply(e);
            this.fills.apply(e);
            this.sessionStats.apply(e);
            this.candleMinutes.apply(e);
            this.schedule.apply(e);
            this.official.apply(e);
            this.bounds.apply(e);
            this.books.apply(e);
        }
      } catch (err) {
        fault(err);
      }
    });
  }

  /** The seq of the last applied event (0 before any). */
  get seq(): number {
    return this.head;
  }

  /** The time of the last applied event ('' before any). */
  get time(): string {
    return this.headTime;
  }

  /**
   * The newest schema version among the events applied so far. A log written only with version 1 keeps
   * the state hash it always had; state that later versions brought in is hashed once a log holds an
   * event of that version (see state-hash.ts).
   */
  get schema(): SchemaVersion {
    return this.schemaVersion;
  }

  /** Sets the head after a snapshot was restored into this fresh state. */
  restoreHead(seq: number, time: string, schema: SchemaVersion): void {
    if (this.head !== 0) throw new Error('state: a snapshot restores only into a fresh state');
    this.head = seq;
    this.headTime = time;
    this.schemaVersion = schema;
  }

  /** Applies one event, of any schema version: older ones are read as the current one (upcasters/). */
  apply(recorded: RecordedEvent): void {
    if (this.fault !== null) throw new Error(`state: inconsistent since seq ${this.head}: ${this.fault.message}`);
    if (recorded.seq !== this.head + 1) throw new Error(`state: expected seq ${this.head + 1}, got ${recorded.seq}`);
    const version = schemaOf(recorded);
    if (version > this.schemaVersion) this.schemaVersion = version;
    const event = upcast(recorded);
    this.events$.next(event);
    const failed = this.faultSeen();
    if (failed !== null) throw new Error(`state: applying ${event.type} at seq ${event.seq} failed: ${failed.message}`);
  }

  // A read the compiler cannot narrow away: the subscribers may have set the fault during next().
  private faultSeen(): Error | null {
    return this.fault;
  }

  checkConsistency(): void {
    this.books.checkConsistency();
  }
}
