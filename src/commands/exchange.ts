// The exchange: decide, sequence, log, apply. One command at a time on one thread; each accepted
// command becomes exactly one event with the next seq, and is applied to every projection before
// execute returns, so the caller reads its effects straight from the state.
import type { EventLog } from '../events/event-log.ts';
import { InMemoryEventLog } from '../events/in-memory-log.ts';
import { SCHEMA_VERSION, type EventBody, type ExchangeEvent } from '../events/types.ts';
import type { RecordedEvent } from '../events/upcasters/upcast.ts';
import { ExchangeState, type ExchangeStateOptions } from '../projections/exchange-state.ts';
import { decide } from './decide.ts';
import { DomainError, Refusal } from './errors.ts';
import type { Command } from './types.ts';

export interface ExchangeOptions extends ExchangeStateOptions {
  readonly log?: EventLog;
}

export class Exchange {
  private current: ExchangeState;
  readonly log: EventLog;
  private readonly options: ExchangeStateOptions;

  constructor(options: ExchangeOptions = {}) {
    this.options = options;
    this.current = new ExchangeState(options);
    this.log = options.log ?? new InMemoryEventLog();
    this.shareNames();
  }

  get state(): ExchangeState {
    return this.current;
  }

  /**
   * A fresh state in place of this one, for recovery starting over after a snapshot it could not use
   * (restoring it threw, or an event after it could not be applied to it): the half-restored state is
   * dropped whole. Only before anything else has been handed the state or subscribed to it, and only
   * while nothing was appended to the log.
   */
  startOver(): void {
    // Events in its own log would disagree with a fresh state (recovery's log is the database's, whose
    // head it sets only once it is done).
    if (this.log instanceof InMemoryEventLog && this.log.headSeq !== 0) throw new Error('exchange: startOver with events in its in-memory log');
    this.current = new ExchangeState(this.options);
    this.shareNames();
  }

  private shareNames(): void {
    // The in-memory log packs traders and markets as numbers: with the state's interners, the names
    // decide has just looked up are found again without a hash lookup.
    if (this.log instanceof InMemoryEventLog) this.log.shareNames(this.current.traderNames, this.current.marketNames);
  }

  get seq(): number {
    return this.current.seq;
  }

  /** Decides and applies one command; throws a DomainError (and changes nothing) when it is refused. */
  execute(command: Command): ExchangeEvent {
    const outcome = this.tryExecute(command);
    if (outcome instanceof Refusal) throw outcome.error();
    return outcome;
  }

  /**
   * Decides and applies one command; returns the refusal (nothing changed) instead of throwing one, for
   * callers to whom a refusal is an ordinary answer. A repeated client order id still throws
   * DuplicateSubmission.
   */
  tryExecute(command: Command): ExchangeEvent | Refusal {
    if (command.time < this.current.time) throw new Error(`exchange: command time ${command.time} is before the head's ${this.current.time}`);
    const body = this.decided(command);
    if (body instanceof Refusal) return body;
    const event = { seq: this.current.seq + 1, time: command.time, type: body.type, data: body.data, v: SCHEMA_VERSION } as ExchangeEvent;
    this.log.append(event);
    this.current.apply(event);
    return event;
  }

  // The rarer commands refuse by throwing; every refusal leaves here as a value.
  private decided(command: Command): EventBody | Refusal {
    try {
      return decide(this.current, command);
    } catch (err) {
      if (err instanceof DomainError) return Refusal.of(err);
      throw err;
    }
  }

  /**
   * An audit's re-run of a recorded event's command: decided by today's engine, and applied with the
   * schema version the recorded event carries, so the state evolves exactly as folding that log would
   * (a version-1 log keeps its version-1 state hash). Returns the event in the current vocabulary,
   * without `v`, for comparison with the recorded event read through the upcasters.
   */
  executeAsRecorded(command: Command, recorded: RecordedEvent): ExchangeEvent {
    if (command.time < this.current.time) throw new Error(`exchange: command time ${command.time} is before the head's ${this.current.time}`);
    const body = this.decided(command);
    if (body instanceof Refusal) throw body.error();
    const base = { seq: this.current.seq + 1, time: command.time, type: body.type, data: body.data };
    const event = (recorded.v === undefined ? base : { ...base, v: recorded.v }) as ExchangeEvent;
    this.log.append(event);
    this.current.apply(event);
    return event;
  }

  /**
   * Applies a recorded event, of any schema version, without deciding it (recovery and replay); the log
   * is not appended to.
   */
  fold(event: RecordedEvent): void {
    this.current.apply(event);
  }
}
