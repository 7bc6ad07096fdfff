import { flatUuid } from '../clock.ts';
import type { Exchange } from '../../commands/exchange.ts';
import { chainHash, GENESIS_HASH } from '../../events/hash.ts';
import { InMemoryEventLog } from '../../events/in-memory-log.ts';
import type { ExchangeEvent } from '../../events/types.ts';
import { MemoryHistory } from '../history/memory-history.ts';
import type { Persistence, PersistenceStatus } from './persistence.ts';

/** STORAGE_BACKEND=in_memory: the log lives in this process and dies with it. */
export class InMemoryPersistence implements Persistence {
  readonly backend = 'in_memory' as const;
  readonly log = new InMemoryEventLog();
  readonly history = new MemoryHistory();
  readonly epoch = flatUuid();
  private readonly done = Promise.resolve();
  // The chain is computed on demand (a freeze asks for it), from where the last answer stopped.
  private hashedSeq = 0;
  private hash = GENESIS_HASH;

  status(): PersistenceStatus {
    return { backend: 'in_memory', mode: 'disabled', queue_depth: 0, in_flight_ops: 0, total_enqueued: this.log.headSeq, total_flushes: 0, last_error: null };
  }

  headHash(): string {
    for (const event of this.log.read(this.hashedSeq)) {
      this.hash = chainHash(this.hash, event);
      this.hashedSeq = event.seq;
    }
    return this.hash;
  }

  capacity(): null {
    return null;
  }

  durable(): Promise<void> {
    return this.done;
  }

  /** Nothing to recover: the log starts empty, and the history follows the state from its start. */
  async recover(exchange: Exchange): Promise<void> {
    this.history.follow(exchange.state);
  }

  async *readEvents(afterSeq: number): AsyncIterable<ExchangeEvent> {
    // Bounded by the head at the start, so a long export does not chase new events forever.
    const head = this.log.headSeq;
    for (const event of this.log.read(afterSeq)) {
      if (event.seq > head) return;
      yield event;
    }
  }

  async close(): Promise<void> {
    await this.history.close();
  }
}
