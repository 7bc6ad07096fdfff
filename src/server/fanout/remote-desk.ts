// The fan-out child's trading desk: an op is forwarded to the main process with its connection, the
// hash of the key the connection authenticated with and the op as parsed here; main runs it on the exchange's
// own path (ws/order-desk.ts LocalDesk), one op of a connection after another, and its answer comes
// back ahead of the command's events in the ordered stream. A connection's consecutive ops are
// forwarded without waiting for each answer (MessageHandler bounds how many), since a round trip
// between two processes costs a few hundred microseconds on a busy machine; anything else the
// connection sends waits for the answers due before it, so replies keep the order of the requests.
// Cancel-on-disconnect is main's to run too.
import type { TraderView } from '../../projections/views.ts';
import { ANSWERED, type Pipeline, type TradeOutcome, type TradingCaller, type TradingDesk, type TradingMessage } from '../ws/order-desk.ts';
import type { LineWriter } from './line-channel.ts';
import { Tag } from './records.ts';

type Answered = (outcome: TradeOutcome) => Promise<void> | undefined;

/** One connection's ops awaiting their answers, oldest first (main answers them in that order). */
interface Line {
  readonly caller: TradingCaller;
  readonly due: Answered[];
  /** The abuse meter's pause: no op is forwarded, and nothing else answered, until it ends. */
  hold: Promise<void> | null;
  idle: { readonly promise: Promise<void>; readonly resolve: () => void } | null;
}

export class RemoteDesk implements TradingDesk, Pipeline {
  readonly pipeline: Pipeline = this;
  private readonly writer: LineWriter;
  private readonly lines = new Map<number, Line>();

  constructor(writer: LineWriter) {
    this.writer = writer;
  }

  busy(connectionId: number): Promise<void> | null {
    const line = this.lines.get(connectionId);
    if (line === undefined) return null;
    if (line.idle === null) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      line.idle = { promise, resolve };
    }
    return line.idle.promise;
  }

  due(connectionId: number): number | null {
    const line = this.lines.get(connectionId);
    if (line === undefined) return 0;
    return line.hold === null ? line.due.length : null;
  }

  send(message: TradingMessage, trader: TraderView, caller: TradingCaller, answered: Answered): void {
    let line = this.lines.get(caller.id);
    if (line === undefined) {
      line = { caller, due: [], hold: null, idle: null };
      this.lines.set(caller.id, line);
    }
    line.due.push(answered);
    // The key the connection authenticated with (one of the trader's keys), which main checks again.
    this.writer.push(`${Tag.Trade}${caller.id} ${caller.key?.api_key_hash ?? trader.api_key_hash} ${JSON.stringify(message)}`);
  }

  trade(message: TradingMessage, trader: TraderView, caller: TradingCaller): Promise<TradeOutcome> {
    return new Promise<TradeOutcome>((resolve) =>
      this.send(message, trader, caller, (outcome) => {
        resolve(outcome);
        return undefined;
      }),
    );
  }

  disconnected(traderId: string): void {
    this.writer.push(`${Tag.Disconnected}${traderId}`);
  }

  flagged(traderId: string, flagged: boolean): void {
    this.writer.push(`${flagged ? Tag.Flagged : Tag.Unflagged}${traderId}`);
  }

  /** Main's answer to connection `id`'s oldest op: its frame (sent to the connection first), or none. */
  answered(id: number, frame: string | null): void {
    const line = this.lines.get(id);
    if (line === undefined || line.due.length === 0) return;
    if (frame !== null) line.caller.send(frame);
    this.settle(line, ANSWERED);
  }

  /** Main's budget refused connection `id`'s oldest op. */
  overBudget(id: number, retryAfterMs: number): void {
    const line = this.lines.get(id);
    if (line !== undefined && line.due.length > 0) this.settle(line, { kind: 'over_budget', retryAfterMs });
  }

  private settle(line: Line, outcome: TradeOutcome): void {
    const answered = line.due.shift() as Answered;
    const hold = answered(outcome);
    if (hold !== undefined && line.hold === null) {
      line.hold = hold;
      void hold.then(() => {
        line.hold = null;
        this.release(line);
      });
    }
    this.release(line);
  }

  // A line with nothing due and no hold is forgotten; whoever waited for it goes on.
  private release(line: Line): void {
    if (line.due.length > 0 || line.hold !== null) return;
    if (this.lines.get(line.caller.id) === line) this.lines.delete(line.caller.id);
    line.idle?.resolve();
  }
}
