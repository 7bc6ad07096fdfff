// The history in PostgreSQL (STORAGE_BACKEND=postgres): the tables of migration 007, written by the batch
// writer with the events, and the events themselves for messages and standings. The process holds only
// what the database does not have yet (history-feed.ts) and a filter of client order ids
// (client-id-filter.ts). Every answer is the history as of the state's head when the request came: the
// database's rows up to the seq it is known to hold (`durable`), and the feed's items after it, taken at
// the same moment, so a row is never counted twice nor missed while a batch commits.
import { to as copyTo } from 'pg-copy-streams';
import pg, { escapeLiteral } from 'pg';
import type { Subscription } from 'rxjs';
import type { OrderRecord } from '../../projections/books.ts';
import { CandleBuilder, MINUTE_MICROS, minuteSpan, timeMicros, type Candle, type CandleInterval, type MinuteCandle } from '../../projections/candles.ts';
import type { ExchangeState } from '../../projections/exchange-state.ts';
import { compareFills } from '../../projections/fills.ts';
import { postedMessage } from '../../projections/history/messages.ts';
import { officialStandingsView, type OfficialStandingsView } from '../../projections/history/official.ts';
import type { TapePosition, TapeTrade } from '../../projections/history/trade-tape.ts';
import type { AdminMessageView, FillView } from '../../projections/views.ts';
import { upcast, type RecordedEvent } from '../../events/upcasters/upcast.ts';
import type { ExchangeEvent } from '../../events/types.ts';
import { DomainError } from '../../commands/errors.ts';
import { DEFAULT_MESSAGE_LIMIT } from '../../projections/history/messages.ts';
import type { Logger } from '../logger.ts';
import { clientConfig, errorText } from '../persistence/postgres/connection.ts';
import { copyRows } from '../persistence/postgres/event-stream.ts';
import { copyUnescape } from '../persistence/postgres/copy-text.ts';
import { ClientIdFilter } from './client-id-filter.ts';
import type { EarlierOrder, FillPosition, History, HistoryFigures, Page } from './history.ts';
import type { HistoryFeed } from './history-feed.ts';
import { executionOfCopyRow, executionOfRow, FILL_COLUMNS, fillViewOf, minuteOfRow, orderOfRow, tapeTradeOf, type ExecutionRecord, type FillRow, type MinuteRow, type OrderRow } from './history-rows.ts';
import { HISTORY_SESSION_OPTIONS } from './history-session.ts';

const FILL_SELECT = `select ${FILL_COLUMNS} from fill_history`;
/**
 * Operator messages kept in memory, newest first: the admin state and the messages route answer the
 * usual request (the 50 newest) without the database, so they keep working while it is away.
 */
const CACHED_MESSAGES = DEFAULT_MESSAGE_LIMIT * 2;

const ORDER_SELECT =
  'select id, trader_id, market, side, price, quantity, remaining, status, filled, notional, order_type, time_in_force, self_trade_prevention, client_order_id, created_at, seq, finished_seq, finished_at from order_history';

export interface PostgresHistoryOptions {
  readonly databaseUrl: string;
  /** What the database does not hold yet (the leader's); null where everything folded is in the database (a follower). */
  readonly feed: HistoryFeed | null;
  readonly logger: Logger;
  /** Bits of the client order id filter (client-id-filter.ts). */
  readonly filterBits?: number;
}

/** Newest first by (seq, n). */
function newerTrade(a: TapeTrade, b: TapeTrade): number {
  return b.seq - a.seq || b.n - a.n;
}

function involves(e: ExecutionRecord, traderId: string): boolean {
  return e.taker_trader_id === traderId || e.maker_trader_id === traderId;
}

export class PostgresHistory implements History {
  private readonly pool: pg.Pool;
  private feed: HistoryFeed | null;
  private readonly logger: Logger;
  private readonly filter: ClientIdFilter;
  /** The filter holds every client order id of the history since the last reset (its load is done). */
  private filterReady = false;
  private state: ExchangeState | null = null;
  private following: Subscription | null = null;
  /** Lookups the filter could not answer, and those it answered (for /metrics and the benchmark). */
  readonly lookups = { filtered: 0, queried: 0 };
  /** The newest messages with their seqs, newest first; null until loaded. */
  private recentMessages: { readonly seq: number; readonly view: AdminMessageView }[] | null = null;
  /** Messages posted while the cache loads, newest first (they join it once it has loaded). */
  private postedWhileLoading: { readonly seq: number; readonly view: AdminMessageView }[] = [];
  /** The cache holds every message there is (fewer than CACHED_MESSAGES were ever posted). */
  private allMessages = false;
  /** The cache's load while it runs. */
  private messagesLoading: Promise<void> | null = null;

  constructor(options: PostgresHistoryOptions) {
    // A pool of its own, whose sessions never sort what an index gives in order and never compile a
    // query (history-session.ts says why).
    this.pool = new pg.Pool({ ...clientConfig(options.databaseUrl, 'exchange-history'), options: HISTORY_SESSION_OPTIONS, max: 4, idleTimeoutMillis: 30_000 });
    // An idle pooled connection that breaks is simply dropped by the pool.
    this.pool.on('error', () => {});
    this.feed = options.feed;
    this.logger = options.logger;
    this.filter = new ClientIdFilter(options.filterBits);
  }

  follow(state: ExchangeState): Subscription {
    if (this.state !== null) throw new Error('history: follows one state');
    this.state = state;
    const orders = state.books.finished$.subscribe((o) => {
      const cid = o.terms.client_order_id;
      if (cid !== null) this.filter.add(o.trader_id, cid);
    });
    const resets = state.events$.subscribe((e) => {
      const message = postedMessage(e);
      if (message !== null) {
        const cache = this.recentMessages ?? this.postedWhileLoading;
        cache.unshift({ seq: e.seq, view: message });
        if (cache.length > CACHED_MESSAGES) {
          cache.length = CACHED_MESSAGES;
          this.allMessages = false;
        }
      }
      if (e.type !== 'TradingReset') return;
      // Client order ids start again; the orders the reset canceled were told before it.
      this.filter.clear();
      this.filterReady = true;
    });
    orders.add(resets);
    this.following = orders;
    void this.loadFilter(state.bounds.resetSeq);
    this.messagesLoading = this.loadMessages(state.seq);
    return orders;
  }

  /**
   * Once the recent messages' cache has loaded (or failed to): a start waits for it, so the admin state
   * answers from memory through an outage from the first request on.
   */
  async messagesCached(): Promise<void> {
    await this.messagesLoading;
  }

  /** The newest messages up to `seq` into the cache (the ones posted since come from the events). */
  private async loadMessages(seq: number): Promise<void> {
    try {
      await this.readMessages(seq);
    } finally {
      this.messagesLoading = null;
    }
  }

  private async readMessages(seq: number): Promise<void> {
    try {
      const rows = await this.rows<{ seq: string; canonical: string }>("select seq, canonical from events where type in ('AdminMessagePosted', 'MarketSettled') and seq <= $1 order by seq desc limit $2", [
        seq,
        CACHED_MESSAGES,
      ]);
      const loaded: { seq: number; view: AdminMessageView }[] = [];
      for (const r of rows) {
        const view = postedMessage(upcast(JSON.parse(r.canonical) as RecordedEvent));
        if (view !== null) loaded.push({ seq: Number(r.seq), view });
      }
      // Messages posted while this was read were told as events: they are newer, and come first.
      const live = this.postedWhileLoading.filter((m) => m.seq > seq);
      this.postedWhileLoading = [];
      this.recentMessages = [...live, ...loaded].slice(0, CACHED_MESSAGES);
      this.allMessages = loaded.length < CACHED_MESSAGES && live.length + loaded.length <= CACHED_MESSAGES;
    } catch (err) {
      this.logger.warn({ err: errorText(err) }, 'history: recent messages not loaded; they are read from the database until a later load succeeds');
    }
  }

  /** Reads every client order id of the history since the last reset into the filter, in the background. */
  private async loadFilter(resetSeq: number): Promise<void> {
    const started = performance.now();
    let client: pg.PoolClient | null = null;
    // A connection that breaks while checked out emits 'error' on its client as well as failing the
    // COPY: unheard, that event is an uncaught exception, which took the whole process down.
    const ignore = (): void => {};
    let complete = false;
    try {
      client = await this.pool.connect();
      client.on('error', ignore);
      const stream = client.query(copyTo(`copy (select trader_id, client_order_id from order_history where client_order_id is not null and seq > ${resetSeq}) to stdout`));
      const decoder = new TextDecoder('utf-8');
      let rest = '';
      let count = 0;
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        const text = rest + decoder.decode(chunk, { stream: true });
        const end = text.lastIndexOf('\n') + 1;
        for (const line of copyRows(text.slice(0, end))) {
          const tab = line.indexOf('\t');
          this.filter.add(copyUnescape(line.slice(0, tab)), copyUnescape(line.slice(tab + 1)));
          count++;
        }
        rest = text.slice(end);
      }
      complete = true;
      this.filterReady = true;
      this.logger.info({ ids: count, ms: Math.round(performance.now() - started) }, 'history: client order id filter loaded');
    } catch (err) {
      // Without it every lookup asks the database: slower, still correct.
      this.logger.warn({ err: errorText(err) }, 'history: client order id filter not loaded; client order ids are looked up in the database');
    } finally {
      client?.off('error', ignore);
      // A COPY left unfinished does not go back to the pool.
      client?.release(!complete);
    }
  }

  /**
   * A follower promoted: from now on this process writes the log, and what it applies reaches the
   * database only when its batch commits (the writer's feed says what has not yet).
   */
  useFeed(feed: HistoryFeed): void {
    this.feed = feed;
  }

  private get live(): ExchangeState {
    if (this.state === null) throw new Error('history: not following a state yet');
    return this.state;
  }

  /** The seq the database holds everything up to, for this read. */
  private durable(): number {
    return this.feed === null ? this.live.seq : this.feed.durableSeq;
  }

  /** A query's rows; a database that cannot answer is history_unavailable (503), never an internal error. */
  private async rows<R extends pg.QueryResultRow>(sql: string, params: unknown[]): Promise<R[]> {
    try {
      return (await this.pool.query<R>(sql, params)).rows;
    } catch (err) {
      this.logger.warn({ err: errorText(err) }, 'history: a query of the history failed');
      throw new DomainError('history_unavailable');
    }
  }

  private pending(durable: number): ExecutionRecord[] {
    return this.feed === null ? [] : this.feed.executionsAfter(durable);
  }

  /**
   * Streamed with COPY, a batch per chunk of rows: a trader with a million fills is never a million
   * rows in memory. The rows come in the API's order, each side by its index, merged; the fills not in
   * the database yet are merged in where they belong.
   */
  async *fills(traderId: string, market: string | undefined): AsyncGenerator<readonly FillView[]> {
    const reset = this.live.bounds.resetSeq;
    const durable = this.durable();
    const pending = this.pending(durable)
      .filter((e) => e.seq > reset && involves(e, traderId) && (market === undefined || e.market === market))
      .map((e) => fillViewOf(e, traderId))
      .sort(compareFills);
    // COPY takes no parameters: the values are quoted as literals (the seqs are integers).
    const trader = escapeLiteral(traderId);
    const where = `seq > ${reset} and seq <= ${durable}${market === undefined ? '' : ` and market = ${escapeLiteral(market)}`}`;
    const sql =
      `copy ((${FILL_SELECT} where taker_trader_id = ${trader} and ${where} order by occurred_at, fill_id)` +
      ` union all (${FILL_SELECT} where maker_trader_id = ${trader} and taker_trader_id <> ${trader} and ${where} order by occurred_at, fill_id)` +
      ' order by occurred_at, fill_id) to stdout';
    let p = 0;
    for await (const rows of this.copyRows(sql)) {
      const batch: FillView[] = [];
      for (const row of rows) {
        const f = fillViewOf(executionOfCopyRow(row), traderId);
        while (p < pending.length && compareFills(pending[p] as FillView, f) < 0) batch.push(pending[p++] as FillView);
        batch.push(f);
      }
      yield batch;
    }
    if (p < pending.length) yield pending.slice(p);
  }

  /** The rows of a COPY ... TO STDOUT, a chunk's whole rows at a time (each row's fields, unescaped). */
  private async *copyRows(sql: string): AsyncGenerator<string[][]> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      this.logger.warn({ err: errorText(err) }, 'history: a query of the history failed');
      throw new DomainError('history_unavailable');
    }
    const ignore = (): void => {};
    client.on('error', ignore);
    let complete = false;
    try {
      const stream = client.query(copyTo(sql));
      const decoder = new TextDecoder('utf-8');
      let rest = '';
      try {
        for await (const chunk of stream as AsyncIterable<Buffer>) {
          const text = rest + decoder.decode(chunk, { stream: true });
          const end = text.lastIndexOf('\n') + 1;
          const rows: string[][] = [];
          for (const line of copyRows(text.slice(0, end))) rows.push(line.split('\t').map(copyUnescape));
          rest = text.slice(end);
          if (rows.length > 0) yield rows;
        }
      } catch (err) {
        this.logger.warn({ err: errorText(err) }, 'history: a query of the history failed');
        throw new DomainError('history_unavailable');
      }
      complete = true;
    } finally {
      client.off('error', ignore);
      // A COPY left unfinished (the reader stopped, or it failed) does not go back to the pool.
      client.release(!complete);
    }
  }

  fillsPage(traderId: string, market: string | undefined, before: FillPosition | null, limit: number): Promise<Page<FillView>> {
    const reset = this.live.bounds.resetSeq;
    const durable = this.durable();
    const older = (f: FillPosition): boolean => before === null || compareFills(f, before) < 0;
    const pending = this.pending(durable)
      .filter((e) => e.seq > reset && involves(e, traderId) && (market === undefined || e.market === market) && older(e))
      .map((e) => fillViewOf(e, traderId));
    const params: unknown[] = [traderId, reset, durable, limit + 1];
    let filters = '';
    if (market !== undefined) {
      params.push(market);
      filters += ` and market = $${params.length}`;
    }
    if (before !== null) {
      params.push(before.occurred_at, before.fill_id);
      filters += ` and (occurred_at, fill_id) < ($${params.length - 1}, $${params.length})`;
    }
    const order = 'order by occurred_at desc, fill_id desc limit $4';
    return this.rows<FillRow>(
      `(${FILL_SELECT} where taker_trader_id = $1 and seq > $2 and seq <= $3${filters} ${order})
       union all (${FILL_SELECT} where maker_trader_id = $1 and taker_trader_id <> $1 and seq > $2 and seq <= $3${filters} ${order})
       ${order}`,
      params,
    ).then((rows) => {
      const all = pending.concat(rows.map((r) => fillViewOf(executionOfRow(r), traderId))).sort((a, b) => compareFills(b, a));
      return { items: all.slice(0, limit), more: all.length > limit };
    });
  }

  tapePage(market: string, before: TapePosition | null, limit: number): Promise<Page<TapeTrade>> {
    const from = this.live.bounds.tapeFrom(market);
    const durable = this.durable();
    const older = (t: TapePosition): boolean => before === null || t.seq < before.seq || (t.seq === before.seq && t.n < before.n);
    const pending = this.pending(durable)
      .filter((e) => e.market === market && e.seq > from && older(e))
      .map(tapeTradeOf)
      .sort(newerTrade);
    const params: unknown[] = [market, from, durable, limit + 1];
    let filters = '';
    if (before !== null) {
      params.push(before.seq, before.n);
      filters = ' and (seq, n) < ($5, $6)';
    }
    // Pending trades are newer than any row: only what they leave of the page is read.
    if (pending.length > limit) return Promise.resolve({ items: pending.slice(0, limit), more: true });
    params[3] = limit + 1 - pending.length;
    return this.rows<FillRow>(`${FILL_SELECT} where market = $1 and seq > $2 and seq <= $3${filters} order by seq desc, n desc limit $4`, params).then((rows) => {
      const all = pending.concat(rows.map((r) => tapeTradeOf(executionOfRow(r))));
      return { items: all.slice(0, limit), more: all.length > limit };
    });
  }

  async candles(market: string, interval: CandleInterval, fromMicros: number, toMicros: number): Promise<Candle[]> {
    const state = this.live;
    const tapeFrom = state.bounds.tapeFrom(market);
    const durable = this.durable();
    const current = state.candleMinutes.current(market);
    const pendingMinutes = this.feed === null ? [] : this.feed.minutesAfter(durable).filter((m) => m.market === market);
    const pendingTrades = this.pending(durable).filter((e) => e.market === market && e.seq > tapeFrom);
    const { head, tail } = minuteSpan(fromMicros, toMicros);
    // Every minute of the market that could matter: whole ones in [head, tail), and the ones the range
    // starts and ends inside (whose trades are read one by one).
    const lo = Math.floor(fromMicros / MINUTE_MICROS) * MINUTE_MICROS;
    const rows = await this.rows<MinuteRow>(
      'select market, start_us, open, high, low, close, volume, trades, first_seq, last_seq from candle_minutes where market = $1 and start_us >= $2 and start_us < $3 and first_seq > $4 and closed_seq <= $5 order by start_us',
      [market, lo, toMicros, tapeFrom, durable],
    );
    const minutes: MinuteCandle[] = rows.map(minuteOfRow);
    for (const m of pendingMinutes) minutes.push(m);
    if (current !== undefined) minutes.push(current);
    const inRange = minutes.filter((m) => m.first_seq > tapeFrom && m.start >= lo && m.start < toMicros).sort((a, b) => a.start - b.start);
    const builder = new CandleBuilder(interval);
    for (const m of inRange) {
      if (m.start >= head && m.start + MINUTE_MICROS <= tail) {
        builder.minute(m);
        continue;
      }
      // A minute the range starts or ends inside: its trades at or after `from`, before `to`.
      for (const t of await this.tradesOf(market, m, durable, pendingTrades)) {
        const at = timeMicros(t.occurred_at);
        if (at >= fromMicros && at < toMicros) builder.trade(at, t.price, t.quantity);
      }
    }
    return builder.candles();
  }

  /** The trades of one minute, in the order they were made. */
  private async tradesOf(market: string, m: MinuteCandle, durable: number, pending: readonly ExecutionRecord[]): Promise<ExecutionRecord[]> {
    const rows = m.first_seq <= durable ? await this.rows<FillRow>(`${FILL_SELECT} where market = $1 and seq >= $2 and seq <= $3 order by seq, n`, [market, m.first_seq, Math.min(m.last_seq, durable)]) : [];
    const out = rows.map(executionOfRow);
    for (const e of pending) if (e.seq >= m.first_seq && e.seq <= m.last_seq && e.seq > durable) out.push(e);
    return out;
  }

  private pendingOrder(durable: number, match: (o: OrderRecord) => boolean): OrderRecord | undefined {
    if (this.feed === null) return undefined;
    const reset = this.live.bounds.resetSeq;
    const orders = this.feed.ordersAfter(durable);
    for (let i = orders.length - 1; i >= 0; i--) {
      const o = orders[i] as OrderRecord;
      if (o.seq > reset && match(o)) return o;
    }
    return undefined;
  }

  order(orderId: string): Promise<OrderRecord | undefined> | OrderRecord {
    const durable = this.durable();
    const found = this.pendingOrder(durable, (o) => o.id === orderId);
    if (found !== undefined) return found;
    return this.rows<OrderRow>(`${ORDER_SELECT} where id = $1 and seq > $2 and finished_seq <= $3 order by finished_seq desc limit 1`, [orderId, this.live.bounds.resetSeq, durable]).then((rows) =>
      rows[0] === undefined ? undefined : orderOfRow(rows[0]),
    );
  }

  private byClientIdIn(traderId: string, clientOrderId: string, durable: number): Promise<OrderRecord | undefined> {
    return this.rows<OrderRow>(`${ORDER_SELECT} where trader_id = $1 and client_order_id = $2 and seq > $3 and finished_seq <= $4 order by finished_seq desc limit 1`, [
      traderId,
      clientOrderId,
      this.live.bounds.resetSeq,
      durable,
    ]).then((rows) => (rows[0] === undefined ? undefined : orderOfRow(rows[0])));
  }

  orderByClientId(traderId: string, clientOrderId: string): Promise<OrderRecord | undefined> | OrderRecord {
    const durable = this.durable();
    const found = this.pendingOrder(durable, (o) => o.trader_id === traderId && o.terms.client_order_id === clientOrderId);
    return found ?? this.byClientIdIn(traderId, clientOrderId, durable);
  }

  earlierOrder(traderId: string, clientOrderId: string, state: ExchangeState): EarlierOrder | Promise<EarlierOrder> {
    const durable = this.durable();
    const mine = (o: OrderRecord): boolean => o.trader_id === traderId && o.terms.client_order_id === clientOrderId;
    const found = this.pendingOrder(durable, mine);
    if (found !== undefined) return { order: found, asOf: state.seq };
    // Every order finished since the last reset went through the filter (loaded, then followed).
    if (this.filterReady && !this.filter.mayHold(traderId, clientOrderId)) {
      this.lookups.filtered++;
      return { order: undefined, asOf: state.seq };
    }
    this.lookups.queried++;
    // The database as of `durable`; the feed, when the answer comes, for what it has not dropped since.
    return this.byClientIdIn(traderId, clientOrderId, durable).then((order) => ({ order: order ?? this.pendingOrder(durable, mine), asOf: durable }));
  }

  reached(seq: number, waitMs: number): Promise<void> | undefined {
    // Without a feed (a follower) the database holds what the state has applied.
    if (this.feed === null || seq <= this.feed.durableSeq) return undefined;
    return this.feed.reached(seq, waitMs);
  }

  fillsOfOrder(order: OrderRecord): Promise<FillView[]> {
    const durable = this.durable();
    const pending = this.pending(durable).filter((e) => e.taker_order_id === order.id || e.maker_order_id === order.id);
    // As taker, its fills are its submission's; as maker, the trader's fills made while it rested.
    const params: unknown[] = [order.id, order.seq, durable, order.trader_id, order.created_at];
    let until = '';
    if ('finished_at' in order && typeof order.finished_at === 'string') {
      params.push(order.finished_at);
      until = ' and occurred_at <= $6';
    }
    return this.rows<FillRow>(
      `(${FILL_SELECT} where seq = $2 and taker_order_id = $1 and seq <= $3 order by occurred_at, fill_id)
       union all (${FILL_SELECT} where maker_trader_id = $4 and maker_order_id = $1 and seq > $2 and seq <= $3 and occurred_at >= $5${until} order by occurred_at, fill_id)
       order by occurred_at, fill_id`,
      params,
    ).then((rows) => {
      const out = rows.map((r) => fillViewOf(executionOfRow(r), order.trader_id));
      for (const e of pending) out.push(fillViewOf(e, order.trader_id));
      return out.sort(compareFills);
    });
  }

  messages(limit: number): Promise<AdminMessageView[]> | AdminMessageView[] {
    const cached = this.recentMessages;
    if (cached !== null && (limit <= cached.length || this.allMessages)) return cached.slice(0, limit).map((m) => m.view);
    // The cache could not load (the database was away at the start): try again, so that it serves
    // the admin state through the next outage. Up to what the database holds; the messages posted
    // since the start were told as events, and join it as they do at the start.
    if (cached === null && this.messagesLoading === null && this.state !== null) this.messagesLoading = this.loadMessages(this.durable());
    const durable = this.durable();
    const out: AdminMessageView[] = [];
    const notes = this.feed === null ? [] : this.feed.notesAfter(durable);
    for (let i = notes.length - 1; i >= 0 && out.length < limit; i--) {
      const m = postedMessage(notes[i] as ExchangeEvent);
      if (m !== null) out.push(m);
    }
    if (out.length >= limit) return out;
    return this.rows<{ canonical: string }>("select canonical from events where type in ('AdminMessagePosted', 'MarketSettled') and seq <= $1 order by seq desc limit $2", [durable, limit - out.length]).then((rows) => {
      for (const r of rows) {
        const m = postedMessage(upcast(JSON.parse(r.canonical) as RecordedEvent));
        if (m !== null) out.push(m);
      }
      return out;
    });
  }

  standings(): Promise<OfficialStandingsView[]> {
    const durable = this.durable();
    const notes = this.feed === null ? [] : this.feed.notesAfter(durable);
    return this.rows<{ canonical: string }>("select canonical from events where type = 'LeaderboardFrozen' and seq <= $1 order by seq", [durable]).then((rows) => {
      const out: OfficialStandingsView[] = [];
      for (const r of rows) {
        const e = upcast(JSON.parse(r.canonical) as RecordedEvent);
        if (e.type === 'LeaderboardFrozen') out.push(officialStandingsView(e));
      }
      for (const e of notes) if (e.type === 'LeaderboardFrozen') out.push(officialStandingsView(e));
      return out;
    });
  }

  standing(label: string): Promise<OfficialStandingsView | undefined> | undefined {
    if (this.live.official.seqOf(label) === undefined) return undefined;
    return this.standings().then((all) => all.find((s) => s.label === label));
  }

  figures(): HistoryFigures {
    return { backend: 'postgres', cachedItems: this.feed?.size ?? 0 };
  }

  /** The client order id filter: ids in it, and its fixed size. */
  filterFigures(): { readonly ids: number; readonly bytes: number; readonly ready: boolean } {
    return { ids: this.filter.size, bytes: this.filter.bytes, ready: this.filterReady };
  }

  async close(): Promise<void> {
    this.following?.unsubscribe();
    await this.pool.end();
  }
}
