import type { EventLog } from './event-log.ts';
import type { ExchangeEvent } from './types.ts';

/** The default log: every event kept in memory, so the state can be rebuilt by folding them. */
export class InMemoryEventLog implements EventLog {
  private readonly events: ExchangeEvent[] = [];

  get headSeq(): number {
    return this.events.length;
  }

  append(event: ExchangeEvent): void {
    if (event.seq !== this.events.length + 1) {
      throw new Error(`log: expected seq ${this.events.length + 1}, got ${event.seq}`);
    }
    this.events.push(event);
  }

  /** Events with seq > afterSeq, oldest first. */
  *read(afterSeq = 0): IterableIterator<ExchangeEvent> {
    for (let i = Math.max(0, afterSeq); i < this.events.length; i++) yield this.events[i] as ExchangeEvent;
  }

  all(): readonly ExchangeEvent[] {
    return this.events;
  }
}
