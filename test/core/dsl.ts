// given(events).when(command).then(event) / .thenRejects(code): the shape of every core spec.
// Events in `given` are folded (never decided), exactly as recovery folds the log.
import { expect } from 'chai';
import { DomainError, type ErrorCode } from '../../src/commands/errors.ts';
import { Exchange } from '../../src/commands/exchange.ts';
import type { Command, CommandBody } from '../../src/commands/types.ts';
import { SCHEMA_VERSION, type EventBody, type ExchangeEvent } from '../../src/events/types.ts';
import { upcast, type RecordedEvent } from '../../src/events/upcasters/upcast.ts';
import type { V1EventBody } from '../../src/events/upcasters/v1.ts';
import { HistoryIndex } from '../../src/projections/history/history-index.ts';
import { stateHash } from '../../src/projections/state-hash.ts';

/** A fixed clock for specs: second n of 2026-01-01, with microseconds. */
export function at(n: number): string {
  const s = String(Math.floor(n / 1_000_000) % 60).padStart(2, '0');
  const us = String(n % 1_000_000).padStart(6, '0');
  return `2026-01-01T00:00:${s}.${us}Z`;
}

export interface Scenario {
  readonly exchange: Exchange;
  /** The whole history, folded beside the state (what the in-memory backend serves). */
  readonly history: HistoryIndex;
  when(command: CommandBody): Outcome;
}

/**
 * A body in either vocabulary: an OrderSubmitted without `status` is version 1 (a plain GTC limit order,
 * as the first logs wrote it); it is folded as version 1 and compared as the upcaster reads it, so the
 * older specs also check that the upcaster and today's engine agree.
 */
export type AnyBody = EventBody | V1EventBody;

function isV1(body: AnyBody): boolean {
  return body.type === 'OrderSubmitted' && !('status' in body.data);
}

function recorded(body: AnyBody, seq: number, time: string): RecordedEvent {
  return (isV1(body) ? { seq, time, ...body } : { seq, time, ...body, v: SCHEMA_VERSION }) as RecordedEvent;
}

export interface Outcome {
  then(expected: AnyBody): ExchangeEvent;
  thenRejects(code: ErrorCode, message?: string | RegExp): DomainError;
}

export function given(...events: AnyBody[]): Scenario {
  const exchange = new Exchange();
  const history = new HistoryIndex();
  history.follow(exchange.state);
  let clock = 1;
  for (const body of events) {
    const event = recorded(body, exchange.seq + 1, at(clock++));
    exchange.log.append(event as ExchangeEvent);
    exchange.fold(event);
  }
  return {
    exchange,
    history,
    when(body: CommandBody): Outcome {
      const command = { ...body, time: at(1_000_000 + clock++) } as Command;
      return {
        then(expected: AnyBody): ExchangeEvent {
          const event = exchange.execute(command);
          const want = upcast(recorded(expected, event.seq, event.time));
          expect({ type: event.type, data: event.data }).to.deep.equal({ type: want.type, data: want.data });
          expect(event.seq).to.equal(events.length + 1);
          expect(event.time).to.equal(command.time);
          exchange.state.checkConsistency();
          return event;
        },
        thenRejects(code: ErrorCode, message?: string | RegExp): DomainError {
          const before = stateHash(exchange.state);
          let caught: unknown;
          try {
            exchange.execute(command);
          } catch (err) {
            caught = err;
          }
          expect(caught, `expected a rejection with ${code}`).to.be.instanceOf(DomainError);
          const error = caught as DomainError;
          expect(error.code).to.equal(code);
          if (typeof message === 'string') expect(error.message).to.equal(message);
          else if (message instanceof RegExp) expect(error.message).to.match(message);
          // A refusal changes nothing and logs nothing.
          expect(exchange.seq).to.equal(events.length);
          expect(stateHash(exchange.state)).to.equal(before);
          return error;
        },
      };
    },
  };
}
