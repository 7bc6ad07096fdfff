import { CompactEvents } from './compact-events.ts';
import type { EventLog } from './event-log.ts';
import type { Interner } from './interner.ts';
import type { ExchangeEvent } from './types.ts';

/**
 * The default log: every event kept in memory, so the state can be rebuilt by folding them. Kept flat
 * (compact-events.ts), so a long log costs the garbage collector little; reading builds the events again.
 */
export class InMemoryEventLog implements EventLog {
  private events = new CompactEvents();

  /**
   * Numbers traders and markets with these interners from now on (the state's: see CompactEvents), if
   * the log is still empty; a log that holds events keeps the names it packed them with.
   */
  shareNames(traders: Interner, markets: Interner): void {
    if (this.events.length === 0) this.events = new CompactEvents(traders, markets);
  }

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
    for (let i = Math.max(0, afterSeq); i < this.events.length; i++) yield this.events.at(i);
  }

  /** Every event, oldest first: the trading events built again, the others the objects appended (read-only by type). */
  all(): readonly ExchangeEvent[] {
    return [...this.read(0)];
  }
}
