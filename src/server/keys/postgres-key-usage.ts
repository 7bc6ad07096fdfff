// The last use of each API key, kept in PostgreSQL beside the log (migration 008, api_key_usage): read
// back at start, and what changed written every few seconds, in one statement, outside the log and its
// writer (a lost write loses at most those seconds of last-use times, never an event). The node that
// writes the log writes it; a follower or standby only reads it at start and keeps its own uses in
// memory (docs/cluster.md).
import pg from 'pg';
import { clientConfig, errorText } from '../persistence/postgres/connection.ts';
import type { Logger } from '../logger.ts';
import type { KeyUsage } from './key-usage.ts';

/** How often the uses recorded since the last write are written. */
export const KEY_USAGE_FLUSH_MS = 5_000;

export class PostgresKeyUsage {
  private readonly pool: pg.Pool;
  private readonly usage: KeyUsage;
  private readonly logger: Logger;
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();
  /** False on a follower or standby: it reads the uses at start and writes none. */
  private readonly writes: boolean;

  constructor(databaseUrl: string, usage: KeyUsage, logger: Logger, writes: boolean) {
    this.writes = writes;
    this.pool = new pg.Pool({ ...clientConfig(databaseUrl, 'exchange-key-usage'), max: 1, idleTimeoutMillis: 30_000 });
    // An idle pooled connection that breaks is simply dropped by the pool.
    this.pool.on('error', () => {});
    this.usage = usage;
    this.logger = logger;
  }

  /** Reads the recorded uses into `usage`; a database without the table (not migrated yet) has none. */
  async load(): Promise<void> {
    try {
      const { rows } = await this.pool.query<{ key_id: string; last_used_at: string }>('select key_id, last_used_at from api_key_usage');
      this.usage.load(rows.map((r) => [r.key_id, r.last_used_at] as const));
    } catch (err) {
      this.logger.warn({ err: errorText(err) }, 'api key usage: last uses not read; they start empty');
    }
  }

  /** Writes the uses recorded since the last write every KEY_USAGE_FLUSH_MS (when this node writes). */
  start(): void {
    if (!this.writes) return;
    this.timer ??= setInterval(() => void this.flush(), KEY_USAGE_FLUSH_MS);
    this.timer.unref();
  }

  /** Writes what changed now (one at a time: a write waits for the one before). */
  flush(): Promise<void> {
    this.writing = this.writing.then(() => this.write());
    return this.writing;
  }

  private async write(): Promise<void> {
    const changed = this.usage.takeChanged();
    if (changed.length === 0) return;
    try {
      // Text compares as time here: every value is RFC 3339 UTC with six fractional digits.
      await this.pool.query(
        `insert into api_key_usage (key_id, last_used_at) select * from unnest($1::text[], $2::text[])
         on conflict (key_id) do update set last_used_at = greatest(api_key_usage.last_used_at, excluded.last_used_at)`,
        [changed.map(([id]) => id), changed.map(([, at]) => at)],
      );
    } catch (err) {
      this.usage.giveBack(changed.map(([id]) => id));
      this.logger.warn({ err: errorText(err), keys: changed.length }, 'api key usage: last uses not written; retrying with the next write');
    }
  }

  /** Writes what is left (when this node writes) and closes the connection. */
  async close(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    if (this.writes) await this.flush();
    await this.pool.end();
  }
}
