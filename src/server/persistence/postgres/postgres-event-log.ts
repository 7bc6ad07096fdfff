import type { EventLog } from '../../../events/event-log.ts';
import type { ExchangeEvent } from '../../../events/types.ts';
import type { BatchWriter } from './batch-writer.ts';

/** The exchange's log with STORAGE_BACKEND=postgres: appending hands the event to the batch writer. */
export class PostgresEventLog implements EventLog {
  private head = 0;
  private readonly writer: BatchWriter;
  private readonly appended: (seq: number) => void;

  constructor(writer: BatchWriter, appended: (seq: number) => void) {
    this.writer = writer;
    this.appended = appended;
  }

  get headSeq(): number {
    return this.head;
  }

  /** Sets the head recovered from the database. */
  resume(seq: number): void {
    if (this.head !== 0) throw new Error('log: resume after events were appended');
    this.head = seq;
  }

  append(event: ExchangeEvent): void {
    if (event.seq !== this.head + 1) throw new Error(`log: expected seq ${this.head + 1}, got ${event.seq}`);
    this.writer.enqueue(event);
    this.head = event.seq;
    this.appended(event.seq);
  }
}
