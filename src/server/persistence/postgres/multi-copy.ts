// One simple query holding several `copy <table> (...) from stdin` statements (with statements around
// them that need no data: begin, notify, commit), each COPY fed its own payload, so rows for several
// tables go out in one transaction and the database answers once. pg-copy-streams' from() feeds one
// COPY per query; this is the same contract with pg's Client (a "submittable": pg calls submit, then
// the handle* methods below for the backend's messages) for K of them.
//
// What pg does with a submittable, as read in pg 8.23's client.js (the contract this file relies on):
// - CopyInResponse, CommandComplete, RowDescription, DataRow, EmptyQueryResponse, PortalSuspended and
//   CopyData are handed to the active query's handle* method of that name: every one must exist, or a
//   statement's message throws inside pg's socket handler.
// - ReadyForQuery reaches handleReadyForQuery only when no ErrorResponse came before it: an
//   ErrorResponse goes to handleError and pg forgets the query at once (its _activeQuery becomes null),
//   so the ReadyForQuery that ends a failed query is seen here only by listening on the connection.
// - A connection that closes or errors calls handleError (on the next tick) with a plain Error.
// - query_timeout wraps `callback`; calling it when the query ends clears the timer (as copy-from.js
//   does). When the timer fires, pg calls handleError with 'Query read timeout' but still routes this
//   query's later messages here, so a COPY under way is ended with CopyFail: the server then answers
//   and the connection comes back instead of waiting forever for COPY data.
import pg from 'pg';

/** One COPY's data: each piece goes out as one CopyData message, as it is (never joined). */
export type CopyPayload = readonly (string | Uint8Array)[];

// Frontend COPY messages (protocol: Message Formats): 'd' CopyData, 'c' CopyDone, 'f' CopyFail.
const COPY_DATA = 0x64;
const COPY_DONE = Buffer.from([0x63, 0, 0, 0, 4]);
const COPY_FAIL = 0x66;

/** The CommandComplete message as pg hands it over (pg-protocol's; only its tag is read). */
interface CommandComplete {
  readonly text: string;
}

export class MultiCopy implements pg.Submittable {
  readonly text: string;
  /**
   * Resolves, after the query's ReadyForQuery, with the rows each COPY reported ("COPY n"), in order.
   * Rejects with the server's error (after its ReadyForQuery: the client is ready for the next query
   * by then; after a server error inside an explicit `begin` the session is in a failed transaction
   * block, to roll back or drop), with the connection's error when it was lost, or with 'Query read
   * timeout'. The last two leave the outcome unknown when they come after the last CopyDone went out:
   * the commit may have happened (the batch writer reconciles such a batch).
   */
  readonly done: Promise<readonly number[]>;
  /**
   * Overwritten by pg's query_timeout with a function that clears its timer; called once the query
   * ends. A field (not left undefined) so that calling it is always safe.
   */
  callback: (err?: Error | null) => void = () => {};

  private readonly payloads: readonly CopyPayload[];
  private readonly counts: number[] = [];
  private connection: pg.Connection | null = null;
  /** CopyInResponses seen so far: the index of the next payload. */
  private copies = 0;
  /** A COPY fed here awaits its CommandComplete, whose count goes to `counts`. */
  private counting = false;
  /** Its payload is being written (its CopyDone not yet sent). */
  private feeding = false;
  /** The 'drain' listener a payload waits on, while the socket's buffer is full. */
  private onDrain: (() => void) | null = null;
  /** Why this query must fail, decided here (more COPYs than payloads) rather than by the server. */
  private failure: Error | null = null;
  private settled = false;
  private resolveDone!: (counts: readonly number[]) => void;
  private rejectDone!: (err: Error) => void;

  constructor(text: string, payloads: readonly CopyPayload[]) {
    this.text = text;
    this.payloads = payloads;
    this.done = new Promise<readonly number[]>((resolve, reject) => {
      this.resolveDone = resolve;
      this.rejectDone = reject;
    });
    // A caller that awaits done after other work (the writer encodes the next batch meanwhile) must
    // not have an early rejection reported as unhandled and end the process; it still sees it.
    this.done.catch(() => {});
  }

  /** Rows each COPY reported so far, in order (on a failure: those that completed before it). */
  get copied(): readonly number[] {
    return this.counts;
  }

  submit(connection: pg.Connection): void {
    this.connection = connection;
    connection.query(this.text);
  }

  handleCopyInResponse(connection: pg.Connection): void {
    const index = this.copies++;
    if (this.settled || this.failure !== null) {
      copyFail(connection, `MultiCopy: COPY ${index + 1} abandoned: ${(this.failure ?? new Error('the query already failed')).message}`);
      return;
    }
    const payload = this.payloads[index];
    if (payload === undefined) {
      this.failure = new Error(`MultiCopy: the query has more COPY FROM STDIN statements than the ${this.payloads.length} payloads given`);
      copyFail(connection, this.failure.message);
      return;
    }
    this.counting = true;
    this.feeding = true;
    this.feed(connection, payload, 0);
  }

  /**
   * Writes the payload from piece `from` on, then CopyDone. When the socket's buffer is full (write
   * returns false) it stops and goes on at 'drain', so no more than a piece waits in memory beyond
   * what the socket holds, however large the payload.
   */
  private feed(connection: pg.Connection, payload: CopyPayload, from: number): void {
    const stream = connection.stream;
    for (let i = from; i < payload.length; i++) {
      const piece = payload[i] as string | Uint8Array;
      const bytes = typeof piece === 'string' ? Buffer.byteLength(piece) : piece.byteLength;
      if (bytes === 0) continue;
      const header = Buffer.allocUnsafe(5);
      header[0] = COPY_DATA;
      header.writeUInt32BE(bytes + 4, 1);
      // Header and piece leave in one write to the socket rather than a 5-byte packet of its own.
      stream.cork();
      stream.write(header);
      const room = stream.write(piece);
      stream.uncork();
      if (!room) {
        this.onDrain = () => {
          this.onDrain = null;
          this.feed(connection, payload, i + 1);
        };
        stream.once('drain', this.onDrain);
        return;
      }
    }
    this.feeding = false;
    stream.write(COPY_DONE);
  }

  /** Stops writing a payload (its drain wait included); true if one was under way. */
  private stopFeeding(): boolean {
    if (this.onDrain !== null) this.connection?.stream.removeListener('drain', this.onDrain);
    this.onDrain = null;
    const was = this.feeding;
    this.feeding = false;
    return was;
  }

  handleCommandComplete(msg: CommandComplete): void {
    if (!this.counting) return;
    this.counting = false;
    const match = /^COPY (\d+)$/.exec(msg.text);
    this.counts.push(match === null ? 0 : Number(match[1]));
  }

  handleReadyForQuery(): void {
    if (this.settled) return;
    if (this.failure !== null) {
      this.settle(this.failure);
      return;
    }
    // The server ran every statement (and a COMMIT among them committed): data left over means the
    // text and the payloads do not match, a mistake in the caller's code.
    if (this.copies < this.payloads.length) {
      this.settle(new Error(`MultiCopy: the query had ${this.copies} COPY FROM STDIN statements, ${this.payloads.length} payloads were given; its statements ran`));
      return;
    }
    this.settle(null);
  }

  handleError(err: Error, connection: pg.Connection): void {
    if (this.settled) return;
    const wasFeeding = this.stopFeeding();
    if (err instanceof pg.DatabaseError) {
      // The server refused a statement: it skips the rest of the query and sends ReadyForQuery, which
      // pg no longer hands to this query. After a FATAL one (the backend terminated) the socket closes
      // instead.
      this.settleAtReady(connection, this.failure === null ? err : new Error(this.failure.message, { cause: err }));
      return;
    }
    // Not the server's answer: the connection was lost, the client could not take the query, or
    // query_timeout gave up on it. In the last case the server is still in the query: a COPY being fed
    // is ended so that it answers, and any later COPY gets CopyFail too (handleCopyInResponse).
    this.failure ??= err;
    if (wasFeeding && connection.stream.writable) copyFail(connection, `MultiCopy: abandoned: ${err.message}`);
    this.settle(err);
  }

  /** Rejects with err once the server's ReadyForQuery, or the connection's end, comes. */
  private settleAtReady(connection: pg.Connection, err: Error): void {
    const ready = (): void => {
      connection.removeListener('end', ready);
      connection.removeListener('readyForQuery', ready);
      this.settle(err);
    };
    connection.once('readyForQuery', ready);
    connection.once('end', ready);
  }

  private settle(err: Error | null): void {
    if (this.settled) return;
    this.settled = true;
    this.stopFeeding();
    this.connection = null;
    // Clears pg's query_timeout timer, if one was set.
    this.callback();
    if (err === null) this.resolveDone(this.counts);
    else this.rejectDone(err);
  }

  // Messages of statements that are not a COPY FROM STDIN: rows of a select, an empty statement, a
  // COPY TO STDOUT's data. Nothing of them is kept; they must not throw in pg's socket handler.
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
  handleCopyData(): void {}
  /** Only the extended protocol suspends a portal; a simple query never does. */
  handlePortalSuspended(): void {}
}

/** CopyFail: the server aborts the COPY (and the query) with an error quoting the message. */
function copyFail(connection: pg.Connection, message: string): void {
  const text = Buffer.from(`${message.replaceAll('\0', ' ')}\0`, 'utf8');
  const header = Buffer.allocUnsafe(5);
  header[0] = COPY_FAIL;
  header.writeUInt32BE(text.length + 4, 1);
  connection.stream.write(Buffer.concat([header, text]));
}
