// Re-runs matching: each recorded event is turned back into the command it records the outcome of,
// decided afresh by the engine, and the event that comes out must equal the recorded one byte for
// byte (canonical JSON): the same fills at the same prices and quantities, the same remainder, the
// same settlement figures. A difference names the seq and the first field that differs.
import { isDomainError } from '../src/commands/errors.ts';
import { commandOf } from '../src/commands/command-of.ts';
import type { Exchange } from '../src/commands/exchange.ts';
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
 * Decides the recorded event's command on `exchange` (which has applied every earlier event). An event
 * of an older schema version is compared as the current version reads it (upcast), against the re-run
 * written at that same version: the outcome must be the same whatever vocabulary recorded it.
 */
export function rerun(exchange: Exchange, recorded: RecordedEvent): void {
  const current = upcast(recorded);
  let produced: ExchangeEvent;
  try {
    produced = exchange.executeAsRecorded(commandOf(current), recorded);
  } catch (err) {
    if (isDomainError(err)) throw new LogFault(recorded.seq, `the engine refuses this ${recorded.type} (${err.code}: ${err.message})`);
    throw err;
  }
  if (canonicalJson(produced) !== canonicalJson(current)) {
    throw new LogFault(recorded.seq, `re-running ${recorded.type} gives a different outcome: ${firstDifference(current, produced)}`);
  }
}
