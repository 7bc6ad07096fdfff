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
  readonly state: ExchangeState;
  readonly log: EventLog;

  constructor(options: ExchangeOptions = {}) {
    this.state = new ExchangeState(options);
    this.log = options.log ?? new InMemoryEventLog();
    // The in-memory log packs traders and markets as numbers: with the state's interners, the names
    // decide has just looked up are found again without a hash lookup.
    if (this.log instanceof InMemoryEventLog) this.log.shareNames(this.state.traderNames, this.state.marketNames);
  }

  get seq(): number {
    return this.state.seq;
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
    if (command.time < this.state.time) throw new Error(`exchange: command time ${command.time} is before the head's ${this.state.time}`);
    const body = this.decided(command);
    if (body instanceof Refusal) return body;
    const event = { seq: this.state.seq + 1, time: command.time, type: body.type, data: body.data, v: SCHEMA_VERSION } as ExchangeEvent;
    this.log.append(event);
    this.state.apply(event);
    return event;
  }

  // The rarer commands refuse by throwing; every refusal leaves here as a value.
  private decided(command: Command): EventBody | Refusal {
    try {
      return decide(this.state, command);
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
    if (command.time < this.state.time) throw new Error(`exchange: command time ${command.time} is before the head's ${this.state.time}`);
    const body = this.decided(command);
    if (body instanceof Refusal) throw body.error();
    const base = { seq: this.state.seq + 1, time: command.time, type: body.type, data: body.data };
    const event = (recorded.v === undefined ? base : { ...base, v: recorded.v }) as ExchangeEvent;
    this.log.append(event);
    this.state.apply(event);
    return event;
  }

  /**
   * Applies a recorded event, of any schema version, without deciding it (recovery and replay); the log
   * is not appended to.
   */
  fold(event: RecordedEvent): void {
    this.state.apply(event);
  }
}
