// The exchange: decide, sequence, log, apply. One command at a time on one thread; each accepted
// command becomes exactly one event with the next seq, and is applied to every projection before
// execute returns, so the caller reads its effects straight from the state.
import type { EventLog } from '../events/event-log.ts';
import { InMemoryEventLog } from '../events/in-memory-log.ts';
import type { ExchangeEvent } from '../events/types.ts';
import { ExchangeState, type ExchangeStateOptions } from '../projections/exchange-state.ts';
import { decide } from './decide.ts';
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
  }

  get seq(): number {
    return this.state.seq;
  }

  /** Decides and applies one command; throws a DomainError (and changes nothing) when it is refused. */
  execute(command: Command): ExchangeEvent {
    if (command.time < this.state.time) throw new Error(`exchange: command time ${command.time} is before the head's ${this.state.time}`);
    const body = decide(this.state, command);
    const event = { seq: this.state.seq + 1, time: command.time, type: body.type, data: body.data } as ExchangeEvent;
    this.log.append(event);
    this.state.apply(event);
    return event;
  }

  /** Applies a recorded event without deciding it (recovery and replay); the log is not appended to. */
  fold(event: ExchangeEvent): void {
    this.state.apply(event);
  }
}
