// Writing the history tables of a log that has events but not their history (log_meta.history_complete
// false: a log written before migration 007, or restored with `replay import`). Recovery then folds the
// whole log from its start, and this writes what the fold adds to the history as it goes, a transaction
// per flush; once the fold reaches the head, the log is marked complete. It starts by emptying the
// tables, so a start that died half way simply does it again.
import type pg from 'pg';
import type { Subscription } from 'rxjs';
import type { ExchangeState } from '../../projections/exchange-state.ts';
import type { Logger } from '../logger.ts';
import { MultiCopy } from '../persistence/postgres/multi-copy.ts';
import { HistoryFeed } from './history-feed.ts';
import { fillRows, HISTORY_TABLES, minuteRow, orderRow } from './history-rows.ts';

/** Items held before they are written (a few megabytes of rows). */
const FLUSH_ITEMS = 20_000;

export async function historyComplete(client: pg.ClientBase): Promise<boolean> {
  const { rows } = await client.query<{ history_complete: boolean }>('select history_complete from log_meta');
  return rows[0]?.history_complete ?? true;
}

export class HistoryBackfill {
  private readonly pool: pg.Pool;
  private readonly logger: Logger;
  private readonly feed = new HistoryFeed();
  private following: Subscription | null = null;
  private written = 0;
  private rows = 0;
  private readonly started = performance.now();

  constructor(pool: pg.Pool, logger: Logger) {
    this.pool = pool;
    this.logger = logger;
  }

  /** Empties the history tables and follows `state` (fresh) as recovery folds the log into it. */
  async begin(state: ExchangeState): Promise<void> {
    if (state.seq !== 0) throw new Error('history backfill: the state must fold the log from its start');
    await this.pool.query('truncate fill_history, order_history, candle_minutes');
    this.following = this.feed.follow(state, 0);
    this.logger.warn('history: this log has events without their history (an older schema, or an import); writing it from the log');
  }

  /** Writes what the fold added up to `seq` once enough is held (always, with `force`). */
  async flush(seq: number, force = false): Promise<void> {
    if (!force && this.feed.size < FLUSH_ITEMS) return;
    if (seq <= this.written) return;
    const items = this.feed.between(this.written, seq);
    const tables: { sql: string; payload: string[] }[] = [];
    const add = (i: number, rows: string[]): void => {
      const spec = HISTORY_TABLES[i] as (typeof HISTORY_TABLES)[number];
      if (rows.length > 0) tables.push({ sql: `copy ${spec.table} (${spec.columns}) from stdin; `, payload: rows });
      this.rows += rows.length;
    };
    add(0, items.events.map(fillRows));
    add(1, items.orders.map(orderRow));
    add(2, items.minutes.map((m) => minuteRow(m.minute, m.seq)));
    if (tables.length > 0) {
      const client = await this.pool.connect();
      // A lost connection fails the query and also emits 'error' on the client: heard here, not uncaught.
      const ignore = (): void => {};
      client.on('error', ignore);
      let ok = false;
      try {
        const multi = new MultiCopy(`begin; ${tables.map((t) => t.sql).join('')}commit`, tables.map((t) => t.payload));
        client.query(multi);
        await multi.done;
        ok = true;
      } finally {
        client.off('error', ignore);
        client.release(!ok);
      }
    }
    this.written = seq;
    this.feed.drop(seq);
  }

  /** Everything up to the head is written: the log's history is complete. */
  async end(seq: number): Promise<void> {
    await this.flush(seq, true);
    this.following?.unsubscribe();
    await this.pool.query('update log_meta set history_complete = true');
    this.logger.info({ seq, rows: this.rows, ms: Math.round(performance.now() - this.started) }, 'history: written from the log');
  }

  /** Recovery gave up on this fold: stop following (the tables are emptied again next time). */
  abandon(): void {
    this.following?.unsubscribe();
  }
}
