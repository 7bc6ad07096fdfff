// The data channel between the main process and the fan-out child: newline-delimited records on one
// stream socket (a socketpair set up as an extra stdio fd), ordered each way. A writer collects what a
// turn of the event loop produces and hands it to the socket in one write, so a burst of events costs
// one system call, not one per event. JSON text never holds a raw newline, so a record is one line and
// a JSON payload is embedded as it is, without escaping it again.
import type { Socket } from 'node:net';

export class LineWriter {
  private readonly socket: Socket;
  private parts: string[] = [];
  private scheduled = false;
  private closed = false;
  /** Writes made so far: a record pushed while this stays the same leaves in the same write. */
  flushes = 0;
  /** Bytes handed to the socket that it has not sent yet (the peer is behind). */
  get backlog(): number {
    return this.socket.writableLength;
  }

  constructor(socket: Socket) {
    this.socket = socket;
  }

  /** Queues one record (without its newline) for the end of this turn. */
  push(record: string): void {
    if (this.closed) return;
    this.parts.push(record, '\n');
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flush);
    }
  }

  /**
   * Writes what is queued, then this record, now and on its own: a large record (a snapshot's part)
   * is never joined with others into one string.
   */
  pushNow(record: string): void {
    if (this.closed) return;
    this.flush();
    this.flushes++;
    if (this.socket.writable) this.socket.write(`${record}\n`);
  }

  /** Writes what is queued now (also called at the end of each turn). */
  readonly flush = (): void => {
    this.scheduled = false;
    if (this.parts.length === 0 || this.closed) return;
    const text = this.parts.length === 2 ? (this.parts[0] as string) + '\n' : this.parts.join('');
    this.parts = [];
    this.flushes++;
    if (this.socket.writable) this.socket.write(text);
  };

  /** Nothing more is written. */
  close(): void {
    this.closed = true;
    this.parts = [];
  }
}

/**
 * Splits a byte stream into lines. UTF-8 never puts the byte 0x0A inside a multi-byte character, so
 * splitting on bytes is safe; a line that spans chunks (a large snapshot) is joined once, when its end
 * arrives.
 */
export class LineReader {
  private partial: Buffer[] = [];
  private readonly onLine: (line: string) => void;

  constructor(onLine: (line: string) => void) {
    this.onLine = onLine;
  }

  push(chunk: Buffer): void {
    let start = 0;
    let nl = chunk.indexOf(10, start);
    while (nl >= 0) {
      let line: string;
      if (this.partial.length === 0) line = chunk.toString('utf8', start, nl);
      else {
        this.partial.push(chunk.subarray(start, nl));
        line = Buffer.concat(this.partial).toString('utf8');
        this.partial = [];
      }
      this.onLine(line);
      start = nl + 1;
      nl = chunk.indexOf(10, start);
    }
    if (start < chunk.length) this.partial.push(chunk.subarray(start));
  }
}
