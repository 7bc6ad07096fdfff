// Verifies a log record by record: well formed, seq gap-free from 1, times never going back, and
// every chain hash H(previous ‖ canonical event). The first fault stops it, named by its seq.
import { parseEvent } from '../src/events/event-schema.ts';
import { chainHash, GENESIS_HASH, sha256Hex } from '../src/events/hash.ts';
import type { RecordedEvent } from '../src/events/upcasters/upcast.ts';
import type { RawRecord } from './log-source.ts';

export class LogFault extends Error {
  readonly seq: number;

  constructor(seq: number, message: string) {
    super(`log fault at seq ${seq}: ${message}`);
    this.name = 'LogFault';
    this.seq = seq;
  }
}

export class LogVerifier {
  private expectedSeq = 1;
  private previousHash = GENESIS_HASH;
  private previousTime = '';
  private hashed = 0;
  private unhashed = 0;

  /** The chain hash of the last verified event (the head hash once the log is read). */
  get headHash(): string {
    return this.previousHash;
  }

  get seq(): number {
    return this.expectedSeq - 1;
  }

  /** Whether every record carried its stored hash (a database log, or an export that kept them). */
  get fullyHashed(): boolean {
    return this.unhashed === 0 && this.hashed > 0;
  }

  /**
   * Accepts a run of events whose every chain link a pipeline worker already checked (shape validated
   * there too), from `prevHash` to `lastHash`, when it continues this log exactly: it starts from the
   * head hash, its seqs follow on without a gap and its times never go back. Returns false, changing
   * nothing, when any of that fails: the caller then checks the same records one by one with check(),
   * which names the fault.
   */
  acceptVerified(events: readonly RecordedEvent[], prevHash: string, lastHash: string): boolean {
    if (prevHash !== this.previousHash) return false;
    let time = this.previousTime;
    for (let i = 0; i < events.length; i++) {
      const event = events[i] as RecordedEvent;
      if (event.seq !== this.expectedSeq + i || event.time < time) return false;
      time = event.time;
    }
    if (events.length === 0) return true;
    this.expectedSeq += events.length;
    this.previousHash = lastHash;
    this.previousTime = time;
    this.hashed += events.length;
    return true;
  }

  /**
   * Checks the next record; throws LogFault naming the seq it expected when anything is wrong. With
   * `within`, a record it refuses (past a stopping point) is checked but not taken: null, and the head
   * stays at the record before it.
   */
  check(record: RawRecord): RecordedEvent;
  check(record: RawRecord, within: (event: RecordedEvent) => boolean): RecordedEvent | null;
  check(record: RawRecord, within?: (event: RecordedEvent) => boolean): RecordedEvent | null {
    const seq = this.expectedSeq;
    if (record.problem !== undefined) throw new LogFault(seq, record.problem);
    const parsed = parseEvent(record.value);
    if (!parsed.ok) {
      const claimed = (record.value as { seq?: unknown } | null)?.seq;
      throw new LogFault(typeof claimed === 'number' && claimed === seq ? claimed : seq, `malformed event (${record.where}): ${parsed.problem}`);
    }
    const event = parsed.event;
    if (event.seq !== seq) throw new LogFault(seq, event.seq > seq ? `missing: the next event is seq ${event.seq}` : `seq ${event.seq} out of order or repeated (${record.where})`);
    if (event.time < this.previousTime) throw new LogFault(seq, `time ${event.time} is before the previous event's ${this.previousTime}`);
    // The text as stored, when the source could cut it out, saves re-serializing the event; if it does
    // not match (a log re-serialized some other way), the canonical form decides.
    let hash = record.text !== undefined && record.hash !== null ? sha256Hex(this.previousHash + record.text) : '';
    if (hash !== record.hash) hash = chainHash(this.previousHash, event);
    if (record.hash !== null && record.hash !== hash) throw new LogFault(seq, 'hash does not match H(previous hash ‖ event): the event or an earlier one was altered');
    if (within !== undefined && !within(event)) return null;
    if (record.hash !== null) {
      this.hashed++;
    } else {
      this.unhashed++;
    }
    this.previousHash = hash;
    this.previousTime = event.time;
    this.expectedSeq++;
    return event;
  }
}
