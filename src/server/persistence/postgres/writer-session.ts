// The writer's one connection. It holds the log's advisory lock, so every write happens on a session
// that owns the log; after the connection breaks, the next use reconnects and takes the lock again
// (refused while another instance holds it, which the writer reports and retries).
import type pg from 'pg';
import { connectClient } from './connection.ts';
import { acquireLogLock } from './log-lock.ts';

export class WriterSession {
  private readonly url: string;
  private client: pg.Client | null = null;
  private connecting: Promise<pg.Client> | null = null;
  /** Cluster mode: told each time the locked connection is lost (the lock may be someone else's now). */
  onLost: (() => void) | null = null;

  constructor(url: string) {
    this.url = url;
  }

  /** A standby's promotion: a connection that already holds the lock becomes this session's. */
  adopt(client: pg.Client): void {
    if (this.client !== null || this.connecting !== null) throw new Error('writer session: adopt on a session in use');
    this.install(client);
  }

  /** The locked connection, connecting (and locking) first if there is none. */
  get(): Promise<pg.Client> {
    if (this.client !== null) return Promise.resolve(this.client);
    this.connecting ??= this.open().finally(() => (this.connecting = null));
    return this.connecting;
  }

  private async open(): Promise<pg.Client> {
    const client = await connectClient(this.url, 'exchange-writer');
    try {
      await acquireLogLock(client, this.url);
    } catch (err) {
      await client.end().catch(() => {});
      throw err;
    }
    this.install(client);
    return client;
  }

  private install(client: pg.Client): void {
    // A broken connection is dropped at once; the lock went with it on the server's side.
    const drop = () => {
      if (this.client !== client) return;
      this.client = null;
      this.onLost?.();
    };
    client.on('error', drop);
    client.on('end', drop);
    this.client = client;
  }

  /**
   * Drops the connection without waiting for the server: after a failure its state is unknown, and a
   * cut network would make a polite goodbye wait forever. A query running on it fails at once.
   */
  discard(): void {
    const client = this.client;
    this.client = null;
    if (client === null) return;
    client.connection.stream.destroy();
    client.end().catch(() => {});
    this.onLost?.();
  }

  /** Ends the session, which releases the lock. */
  async close(): Promise<void> {
    this.onLost = null;
    await this.connecting?.catch(() => {});
    const client = this.client;
    this.client = null;
    if (client !== null) await client.end().catch(() => {});
  }
}
