// A recorded event turned back into the command it records (src/commands/command-of.ts, as the audit
// does), to be submitted again in the practice world: same trader, same ids, same terms. What depends
// on the world it runs in is taken from this one, as the doors take it: a freeze names this log's seq
// and chain hash; a submission whose recording made no fill gets fill ids of its own (the recorded
// seed stands for "none"). A recorded order keeps its id, so a recorded cancel or amend of it names the
// order that the recorded submission made here (and is refused, and counted, when that order is gone).
import { commandOf } from '../../commands/command-of.ts';
import type { Command } from '../../commands/types.ts';
import type { ExchangeEvent } from '../../events/types.ts';
import type { Stamp } from '../clock.ts';

/** What a recorded command takes from the practice world when it is submitted again. */
export interface PracticeWorld {
  /** The state's head seq (a freeze's as_of_seq). */
  seq(): number;
  /** The practice log's chain hash at its head (a freeze's head_hash). */
  headHash(): string;
}

/** A seat taken over: the recorded trader whose own commands are dropped, and the hash of the key the team was given. */
export interface Seat {
  readonly traderId: string;
  readonly apiKeyHash: string;
}

/**
 * Whether the recorded event is the seat's own command, dropped from the play: its orders, cancels,
 * amends and cancel-alls (a disconnect's too), and a rotation, issue or revocation of its keys (the team
 * holds its keys now: a recorded key of the seat's would let the recording's trader in).
 * The operator's decisions about the trader (disable, enable) are played.
 */
export function isSeatCommand(event: ExchangeEvent, seat: string | null): boolean {
  if (seat === null) return false;
  switch (event.type) {
    case 'OrderSubmitted':
      return event.data.order.trader_id === seat;
    case 'OrderCanceled':
    case 'OrderAmended':
    case 'OrdersCanceled':
    case 'ApiKeyRotated':
    case 'ApiKeyIssued':
    case 'ApiKeyRevoked':
      return event.data.trader_id === seat;
    default:
      return false;
  }
}

/** The command to submit again for a recorded event (in the current vocabulary), stamped with `stamp`. */
export function recordedCommand(event: ExchangeEvent, stamp: Stamp, world: PracticeWorld, seat: Seat | null): Command {
  const command = commandOf(event);
  const time = stamp.time;
  switch (command.type) {
    case 'SubmitOrder':
      // A submission that filled nothing carries the placeholder seed; here it may fill, and its fills need ids of their own.
      return { ...command, time, fill_id_seed: event.type === 'OrderSubmitted' && event.data.fills.length > 0 ? command.fill_id_seed : stamp.uuid() };
    case 'FreezeLeaderboard':
      return { ...command, time, as_of_seq: world.seq(), head_hash: world.headHash() };
    case 'ProvisionTrader':
      return seat !== null && command.trader_id === seat.traderId ? { ...command, time, api_key_hash: seat.apiKeyHash } : { ...command, time };
    case 'ProvisionTraders':
      if (seat === null || !command.traders.some((t) => t.trader_id === seat.traderId)) return { ...command, time };
      return { ...command, time, traders: command.traders.map((t) => (t.trader_id === seat.traderId ? { ...t, api_key_hash: seat.apiKeyHash } : t)) };
    default:
      return { ...command, time };
  }
}

/**
 * Whether a recorded command accepted again came out otherwise than recorded: another event (a
 * scheduled action refused now), or a submission that filled another quantity.
 */
export function outcomeDiffers(recorded: ExchangeEvent, produced: ExchangeEvent): boolean {
  if (recorded.type !== produced.type) return true;
  if (recorded.type === 'OrderSubmitted' && produced.type === 'OrderSubmitted') return filledQuantity(recorded) !== filledQuantity(produced);
  return false;
}

function filledQuantity(event: Extract<ExchangeEvent, { type: 'OrderSubmitted' }>): number {
  let filled = 0;
  for (const f of event.data.fills) filled += f.quantity;
  return filled;
}
