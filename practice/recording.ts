// The recording a practice exchange plays, read twice through the replay tool's verified reading
// (replay/verified-log.ts). The first read verifies the whole source (shapes, seqs, times, every chain
// hash) before anything is served, folds what comes before the played part into the practice exchange
// and into the recording's own world, and counts what is to be played. The second read, while the
// exchange plays, hands out the played part in batches: the same bytes, which it proves by ending every
// batch on the chain hash the first read had there, so nothing is held in memory between the two.
import { normalizeUsername } from '../src/commands/decide-admin.ts';
import type { Exchange } from '../src/commands/exchange.ts';
import type { ExchangeEvent } from '../src/events/types.ts';
import { upcast, type RecordedEvent } from '../src/events/upcasters/upcast.ts';
import { isSeatCommand } from '../src/server/practice/recorded-command.ts';
import { Progress } from '../replay/progress.ts';
import { LogFault } from '../replay/verify.ts';
import { VerifiedLog, type LogSourceOptions } from '../replay/verified-log.ts';

/** The part of the recording to play: events at or after `from` and at or before `until` (RFC 3339, the clock's form). */
export interface PlayedPart {
  readonly from?: string | undefined;
  readonly until?: string | undefined;
}

export interface RecordingScan {
  /** Events in the whole source. */
  readonly events: number;
  /** The played part's bounds: as given, else the first and last events' times. */
  readonly from: string;
  readonly until: string;
  /** The last event folded before the played part (0: none), and the last one played. */
  readonly prefixSeq: number;
  readonly lastPlayedSeq: number;
  /** Recorded commands to play (the seat's own not counted). */
  readonly commands: number;
  /** Every trader the recording provisions up to the end of the played part, by username. */
  readonly traders: ReadonlyMap<string, string>;
  /** The seat's trader id, when a seat was asked for and the recording has it by then. */
  readonly seatId: string | null;
  /** The first read, which the second must meet batch for batch. */
  readonly read: VerifiedLog;
}

export interface ScanOptions extends LogSourceOptions {
  readonly part: PlayedPart;
  readonly seat: string | null;
  readonly quiet?: boolean;
}

/**
 * Verifies the whole source and folds the events before the played part with `fold`. Throws LogFault
 * (the first fault, named by its seq) and SourceUnavailable as the replay tool does.
 */
export async function scanRecording(o: ScanOptions, fold: (event: RecordedEvent) => void): Promise<RecordingScan> {
  const { from, until } = o.part;
  const log = new VerifiedLog(o);
  const traders = new Map<string, string>();
  const progress = new Progress('verifying the recording', o.quiet !== true && process.stderr.isTTY === true);
  const seatName = o.seat === null ? null : normalizeUsername(o.seat);
  let seatId: string | null = null;
  let prefixSeq = 0;
  let lastPlayedSeq = 0;
  let commands = 0;
  let first: string | null = null;
  let last: string | null = null;
  for await (const batch of log.batches()) {
    for (const event of batch) {
      first ??= event.time;
      last = event.time;
      if (from !== undefined && event.time < from) {
        try {
          fold(event);
        } catch (err) {
          throw new LogFault(event.seq, `the event cannot be applied to the state before it: ${err instanceof Error ? err.message : String(err)}`);
        }
        prefixSeq = event.seq;
        noteTraders(upcast(event), traders);
        continue;
      }
      if (until !== undefined && event.time > until) continue;
      const current = upcast(event);
      noteTraders(current, traders);
      if (seatName !== null && seatId === null) seatId = traders.get(seatName) ?? null;
      lastPlayedSeq = event.seq;
      if (!isSeatCommand(current, seatId)) commands++;
    }
    progress.tick(log.verifier.seq & ~1023);
  }
  progress.done(log.verifier.seq);
  if (seatName !== null && seatId === null) seatId = traders.get(seatName) ?? null;
  const events = log.verifier.seq;
  if (lastPlayedSeq === 0) lastPlayedSeq = prefixSeq;
  return { events, from: from ?? first ?? '', until: until ?? last ?? '', prefixSeq, lastPlayedSeq, commands, traders, seatId, read: log };
}

function noteTraders(event: ExchangeEvent, traders: Map<string, string>): void {
  if (event.type === 'TraderProvisioned') traders.set(event.data.username, event.data.trader_id);
  else if (event.type === 'TradersProvisioned') for (const t of event.data.traders) traders.set(t.username, t.trader_id);
}

/**
 * The played part, read again (VerifiedLog.again: the bytes the first read verified, proven by their
 * chain hashes): batches of the events after `prefixSeq` up to `lastPlayedSeq`.
 */
export async function* playedEvents(o: LogSourceOptions, scan: RecordingScan): AsyncGenerator<readonly RecordedEvent[]> {
  if (scan.lastPlayedSeq <= scan.prefixSeq) return;
  for await (const batch of VerifiedLog.again(o, scan.read)) {
    const start = (batch[0] as RecordedEvent).seq;
    const end = start + batch.length - 1;
    if (end <= scan.prefixSeq) continue;
    const from = Math.max(0, scan.prefixSeq + 1 - start);
    const to = Math.min(batch.length, scan.lastPlayedSeq + 1 - start);
    yield from === 0 && to === batch.length ? batch : batch.slice(from, to);
    if (end >= scan.lastPlayedSeq) return;
  }
}
