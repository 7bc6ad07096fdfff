// Every change of state goes through the service: it admits the command in arrival order, stamps it,
// and calls back once the command may be acknowledged, before anything it caused is published. The
// reply is written in that callback, so a client always has its answer before the WebSocket events.
import type { ServerResponse } from 'node:http';
import { DomainError, DuplicateSubmission } from '../../commands/errors.ts';
import { duplicateReply } from '../../projections/order-replies.ts';
import type { Command } from '../../commands/types.ts';
import type { EventOf, EventType, ExchangeEvent } from '../../events/types.ts';
import type { Stamp } from '../clock.ts';
import type { ServerContext } from '../context.ts';
import { traderLaneOf } from '../admission/lanes.ts';
import { REPLIED, type Replied } from './route.ts';
import { sendError, sendJson } from './send.ts';

export async function runCommand(
  context: ServerContext,
  res: ServerResponse,
  status: number,
  build: (stamp: Stamp) => Command,
  view: (event: ExchangeEvent) => unknown,
  /** Writes the reply when not as JSON (CSV, say). */
  send: (res: ServerResponse, status: number, body: unknown) => void = sendJson,
): Promise<Replied> {
  // The body is built as soon as the command is applied (it may read the state, which later commands
  // change), and sent once the command may be acknowledged.
  const capture = (event: ExchangeEvent): { body: unknown } | { error: unknown } => {
    try {
      return { body: view(event) };
    } catch (error) {
      return { error };
    }
  };
  try {
    await context.service.execute(
      build,
      (event, built) => {
        // Never throw here: the service publishes the command's events after this returns.
        if ('body' in built) {
          send(res, status, built.body);
          return;
        }
        context.logger.error({ err: built.error, seq: event.seq, type: event.type }, 'building the reply of an accepted command failed');
        sendError(res, new DomainError('internal'));
      },
      capture,
      traderLaneOf(res),
    );
  } catch (err) {
    if (!(err instanceof DuplicateSubmission)) throw err;
    // A repeated client_order_id: nothing was appended. The answer waits, as the first one did, until
    // the first order is durable, so a retry is never told of an order that could still be lost.
    await context.service.whenDurable(err.orderId);
    sendJson(res, 200, duplicateReply(context.service.state, err.orderId));
  }
  return REPLIED;
}

/** Narrows the event a command produced; another type would be a bug in the core. */
export function eventOf<T extends EventType>(event: ExchangeEvent, type: T): EventOf<T> {
  if (event.type !== type) throw new Error(`expected a ${type} event, got ${event.type}`);
  return event as EventOf<T>;
}
