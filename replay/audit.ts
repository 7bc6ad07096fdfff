// Re-runs matching: each recorded event is turned back into the command it records the outcome of,
// decided afresh by the engine, and the event that comes out must equal the recorded one byte for
// byte (canonical JSON): the same fills at the same prices and quantities, the same remainder, the
// same settlement figures. A difference names the seq and the first field that differs.
import { isDomainError } from '../src/commands/errors.ts';
import { DuplicateSubmission } from '../src/commands/duplicate-submission.ts';
import { commandOf } from '../src/commands/command-of.ts';
import type { Exchange } from '../src/commands/exchange.ts';
import type { Command } from '../src/commands/types.ts';
import type { HistoryIndex } from '../src/projections/history/history-index.ts';
import { canonicalJson } from '../src/events/canonical.ts';
import type { ExchangeEvent } from '../src/events/types.ts';
import { upcast, type RecordedEvent } from '../src/events/upcasters/upcast.ts';
import { LogFault } from './verify.ts';

function firstDifference(a: unknown, b: unknown, path = ''): string {
  if (canonicalJson(a) === canonicalJson(b)) return '';
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of [...keys].sort()) {
      const d = firstDifference((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], path === '' ? k : `${path}.${k}`);
      if (d !== '') return d;
    }
  }
  return `${path || '(event)'}: recorded ${JSON.stringify(a)}, re-run ${JSON.stringify(b)}`;
}

/**
 * The command a recorded event records, with what the server looks up in the history at admission: a
 * submission's earlier order with its client order id, if the books no longer hold it (the whole
 * history is at hand here, so the re-run checks the log against every order since the last reset).
 */
function commandWithHistory(exchange: Exchange, event: ExchangeEvent, history: HistoryIndex | undefined): Command {
  const command = commandOf(event);
  if (history === undefined || command.type !== 'SubmitOrder' || command.client_order_id === null) return command;
  // Books that keep every order (rebuild's) hold every earlier order themselves.
  if (exchange.state.books.clientSlot(command.trader_id, command.client_order_id) >= 0) return command;
  const earlier = history.orders.byClient(command.trader_id, command.client_order_id);
  return earlier === undefined ? command : { ...command, earlier_order: earlier };
}

/**
 * Decides the recorded event's command on `exchange` (which has applied every earlier event). An event
 * of an older schema version is compared as the current version reads it (upcast), against the re-run
 * written at that same version: the outcome must be the same whatever vocabulary recorded it. With the
 * exchange's complete history (`history`), a submission that repeats a client order id used since the
 * last reset is a fault of the log, however long ago the first order finished.
 */
export function rerun(exchange: Exchange, recorded: RecordedEvent, history?: HistoryIndex): void {
  const current = upcast(recorded);
  let produced: ExchangeEvent;
  try {
    produced = exchange.executeAsRecorded(commandWithHistory(exchange, current, history), recorded);
  } catch (err) {
    if (isDomainError(err)) throw new LogFault(recorded.seq, `the engine refuses this ${recorded.type} (${err.code}: ${err.message})`);
    if (err instanceof DuplicateSubmission) throw new LogFault(recorded.seq, `this ${recorded.type} repeats a client_order_id of order ${err.orderId}: the engine answers it as a duplicate and records nothing`);
    throw err;
  }
  if (canonicalJson(produced) !== canonicalJson(current)) {
    throw new LogFault(recorded.seq, `re-running ${recorded.type} gives a different outcome: ${firstDifference(current, produced)}`);
  }
}
