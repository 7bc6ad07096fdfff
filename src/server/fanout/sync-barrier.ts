// Read-your-writes in the fan-out child. Before it answers `authenticate` or `subscribe`, the child
// asks the main process for a sync and waits for the answer, which main sends in the same ordered
// stream as its events: once it arrives, the child has folded every event main published before the
// request reached it, so a client that had a REST answer sees what that answer said. The requests of
// one turn (until the channel's next write) share one record and one answer.
import type { LineWriter } from './line-channel.ts';
import { Tag } from './records.ts';

interface Open {
  readonly token: number;
  readonly write: number;
  readonly promise: Promise<void>;
  readonly resolve: () => void;
}

export class SyncBarrier {
  private readonly writer: LineWriter;
  private nextToken = 1;
  private open: Open | null = null;
  /** Requests sent and not answered yet, oldest first (answers come in order). */
  private readonly waiting: Open[] = [];

  constructor(writer: LineWriter) {
    this.writer = writer;
  }

  /** Resolves once every event main published before this request has been folded here. */
  request(): Promise<void> {
    const open = this.open;
    if (open !== null && open.write === this.writer.flushes) return open.promise;
    let resolve!: () => void;
    const promise = new Promise<void>((r) => (resolve = r));
    const next: Open = { token: this.nextToken++, write: this.writer.flushes, promise, resolve };
    this.open = next;
    this.waiting.push(next);
    this.writer.push(`${Tag.Sync}${next.token}`);
    return promise;
  }

  /** Main's answer to `token` (and so to every request before it). */
  answered(token: number): void {
    while (this.waiting.length > 0 && (this.waiting[0] as Open).token <= token) (this.waiting.shift() as Open).resolve();
  }
}
