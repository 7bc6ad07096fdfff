// Every change of state goes through the service: it admits the command in arrival order, stamps it,
// and calls back once the command may be acknowledged, before anything it caused is published. The
// reply is written in that callback, so a client always has its answer before the WebSocket events.
import type { ServerResponse } from 'node:http';
import { DomainError } from '../../commands/errors.ts';
import { DuplicateSubmission } from '../../commands/duplicate-submission.ts';
import { then } from '../history/history.ts';
import { duplicateReply } from '../history/order-lookups.ts';
import type { Command } from '../../commands/types.ts';
import type { EventOf, EventType, ExchangeEvent } from '../../events/types.ts';
import type { Stamp } from '../clock.ts';
import type { ServerContext } from '../context.ts';
import { REPLIED, type Call, type Replied } from './route.ts';
import { sendError, sendJson } from './send.ts';

type Captured = { body: unknown } | { error: unknown };

/** What runCommand needs of a route's call: the service, the response, and the caller, whose lane of the fair queue the command waits in. */
export type CommandCall = Pick<Call<unknown, unknown, unknown>, 'context' | 'res' | 'trader'>;

/**
 * Runs one command and writes its reply. Synchronous whenever the service can admit the command at
 * once (REPLIED is returned after the reply was written, a refusal is thrown); a promise when the
 * command has to wait (the fair queue, writer backpressure, durable acks), so the in-memory order path
 * allocates no promise at all.
 */
export function runCommand(
  call: CommandCall,
  status: number,
  build: (stamp: Stamp) => Command,
  view: (event: ExchangeEvent) => unknown,
  /** Writes the reply when not as JSON (CSV, say). */
  send: (res: ServerResponse, status: number, body: unknown) => void = sendJson,
): Replied | Promise<Replied> {
  const { context, res } = call;
  // The body is built as soon as the command is applied (it may read the state, which later commands
  // change), and sent once the command may be acknowledged.
  const capture = (event: ExchangeEvent): Captured => {
    try {
      return { body: view(event) };
    } catch (error) {
      return { error };
    }
  };
  const reply = (event: ExchangeEvent, built: Captured): void => {
    // Never throw here: the service publishes the command's events after this returns.
    if ('body' in built) {
      send(res, status, built.body);
      return;
    }
    context.logger.error({ err: built.error, seq: event.seq, type: event.type }, 'building the reply of an accepted command failed');
    sendError(res, new DomainError('internal'));
  };
  const service = context.service;
  try {
    if (service.executeNow(build, reply, capture) !== null) return REPLIED;
  } catch (err) {
    if (!(err instanceof DuplicateSubmission)) throw err;
    return answerDuplicate(context, res, err);
  }
  // Operators (no trader) wait in the operators' lane, which goes first.
  return service.execute(build, reply, capture, call.trader?.trader_id ?? null).then(
    () => REPLIED,
    (err: unknown) => {
      if (!(err instanceof DuplicateSubmission)) throw err;
      return answerDuplicate(context, res, err);
    },
  );
}

/**
 * A repeated client_order_id: nothing was appended. The answer waits, as the first one did, until the
 * first order is durable, so a retry is never told of an order that could still be lost.
 */
function answerDuplicate(context: ServerContext, res: ServerResponse, duplicate: DuplicateSubmission): Replied | Promise<Replied> {
  const service = context.service;
  const send = (): Replied | Promise<Replied> =>
    then(duplicateReply(service.state, context.history, duplicate), (body) => {
      sendJson(res, 200, body);
      return REPLIED;
    });
  return service.waitsForDurability ? service.whenDurable(duplicate.order?.seq ?? 0).then(send) : send();
}

/** Narrows the event a command produced; another type would be a bug in the core. */
export function eventOf<T extends EventType>(event: ExchangeEvent, type: T): EventOf<T> {
  if (event.type !== type) throw new Error(`expected a ${type} event, got ${event.type}`);
  return event as EventOf<T>;
}
