// The exchange's log on a follower or standby. A follower never decides a command, so nothing is ever
// appended; once a standby is promoted, appends go to the PostgreSQL log it now writes.
import type { EventLog } from '../../events/event-log.ts';
import type { ExchangeEvent } from '../../events/types.ts';

export class ReplicaLog implements EventLog {
  private target: EventLog | null = null;
  private folded = 0;

  get headSeq(): number {
    return this.target === null ? this.folded : this.target.headSeq;
  }

  /** The follower folded up to this seq. */
  foldedTo(seq: number): void {
    this.folded = seq;
  }

  /** Promotion: from now on this node writes. */
  writeTo(target: EventLog): void {
    this.target = target;
  }

  append(event: ExchangeEvent): void {
    // The service refuses every command on a node that is not the leader; reaching this is a bug.
    if (this.target === null) throw new Error(`replica log: seq ${event.seq} appended on a node that does not write`);
    this.target.append(event);
  }
}
