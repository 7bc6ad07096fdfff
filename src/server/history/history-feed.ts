// What the state adds to the history and the database does not hold yet: the executions, finished orders,
// closed candle minutes and message and standings events of every event applied after the last durable
// one. The batch writer takes a batch's rows from here, in the same transaction as its events; the
// readers answer from here what the database cannot show yet; and once the batch commits, its items are
// dropped. So this holds at most what the writer's queue holds (its capacity bounds both).
import type { Subscription } from 'rxjs';
import type { EventOf, ExchangeEvent } from '../../events/types.ts';
import type { FinishedOrder } from '../../projections/books.ts';
import type { MinuteCandle } from '../../projections/candles.ts';
import type { ExchangeState } from '../../projections/exchange-state.ts';
import { executionsOf, type ExecutionRecord } from './history-rows.ts';

/** Events the history reads whole: operator messages and frozen standings. */
export type NoteEvent = EventOf<'AdminMessagePosted'> | EventOf<'MarketSettled'> | EventOf<'LeaderboardFrozen'>;

function isNote(event: ExchangeEvent): event is NoteEvent {
  return event.type === 'AdminMessagePosted' || event.type === 'MarketSettled' || event.type === 'LeaderboardFrozen';
}

/** Items of one seq range, for a batch. */
export interface HistoryItems {
  readonly events: readonly EventOf<'OrderSubmitted'>[];
  readonly orders: readonly FinishedOrder[];
  /** Each with the seq of the event that closed it. */
  readonly minutes: readonly { readonly seq: number; readonly minute: MinuteCandle }[];
}

/** The first index of a seq-ordered list whose item's seq is above `seq`. */
function firstAbove<T>(list: readonly T[], seq: number, seqOf: (item: T) => number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (seqOf(list[mid] as T) <= seq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const eventSeq = (e: { readonly seq: number }): number => e.seq;
const finishedSeq = (o: FinishedOrder): number => o.finished_seq;

export class HistoryFeed {
  /** Submissions that made fills (their executions are read from them when asked). */
  private submissions: EventOf<'OrderSubmitted'>[] = [];
  private orders: FinishedOrder[] = [];
  /** Closed minutes, by the seq of the trade that closed them: its event's. */
  private minutes: { readonly seq: number; readonly minute: MinuteCandle }[] = [];
  private notes: NoteEvent[] = [];
  private durable = 0;
  /** Who waits for the database to hold a seq (reached), each released by drop or by its timer. */
  private waiters: { readonly seq: number; readonly done: () => void }[] = [];

  /** Takes what the state applies from its head on; items of seqs at or below `durableSeq` are not kept. */
  follow(state: ExchangeState, durableSeq: number): Subscription {
    this.durable = durableSeq;
    const orders = state.books.finished$.subscribe((o) => {
      if (o.finished_seq > this.durable) this.orders.push(o);
    });
    // A closed minute is told while its closing event applies: the state's head is that event's seq.
    const minutes = state.candleMinutes.closed$.subscribe((minute) => {
      if (state.seq > this.durable) this.minutes.push({ seq: state.seq, minute });
    });
    const events = state.events$.subscribe((event) => {
      if (event.seq <= this.durable) return;
      if (event.type === 'OrderSubmitted') {
        if (event.data.fills.length > 0) this.submissions.push(event);
      } else if (isNote(event)) this.notes.push(event);
    });
    orders.add(minutes);
    orders.add(events);
    return orders;
  }

  /** Everything up to `seq` is in the database now. */
  drop(seq: number): void {
    if (seq <= this.durable) return;
    this.durable = seq;
    this.submissions = this.submissions.slice(firstAbove(this.submissions, seq, eventSeq));
    this.orders = this.orders.slice(firstAbove(this.orders, seq, finishedSeq));
    this.minutes = this.minutes.slice(firstAbove(this.minutes, seq, eventSeq));
    this.notes = this.notes.slice(firstAbove(this.notes, seq, eventSeq));
    if (this.waiters.length > 0) for (const w of this.waiters.filter((w) => w.seq <= seq)) w.done();
  }

  /**
   * Resolves once the database holds everything up to `seq` (drop), or after `waitMs` if it does not by
   * then (a writer that is behind or stopped): the caller looks at durableSeq again either way.
   */
  reached(seq: number, waitMs: number): Promise<void> {
    if (seq <= this.durable) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const waiter = {
        seq,
        done: () => {
          clearTimeout(timer);
          this.waiters = this.waiters.filter((w) => w !== waiter);
          resolve();
        },
      };
      const timer = setTimeout(waiter.done, waitMs);
      timer.unref();
      this.waiters.push(waiter);
    });
  }

  /** The seq the database holds everything up to, as this feed knows it. */
  get durableSeq(): number {
    return this.durable;
  }

  /** Items held (for /metrics). */
  get size(): number {
    return this.submissions.length + this.orders.length + this.minutes.length + this.notes.length;
  }

  /** The items of events with from < seq <= to, for a batch. */
  between(from: number, to: number): HistoryItems {
    const pick = <T>(list: readonly T[], seqOf: (item: T) => number): T[] => list.slice(firstAbove(list, from, seqOf), firstAbove(list, to, seqOf));
    return {
      events: pick(this.submissions, eventSeq),
      orders: pick(this.orders, finishedSeq),
      minutes: pick(this.minutes, eventSeq),
    };
  }

  /** Executions of events after `seq` (the database has the rest), oldest first. */
  executionsAfter(seq: number, keep: (e: EventOf<'OrderSubmitted'>) => boolean = () => true): ExecutionRecord[] {
    const out: ExecutionRecord[] = [];
    for (let i = firstAbove(this.submissions, seq, eventSeq); i < this.submissions.length; i++) {
      const event = this.submissions[i] as EventOf<'OrderSubmitted'>;
      if (keep(event)) for (const e of executionsOf(event)) out.push(e);
    }
    return out;
  }

  /** Orders finished after `seq`, oldest first. */
  ordersAfter(seq: number): FinishedOrder[] {
    return this.orders.slice(firstAbove(this.orders, seq, finishedSeq));
  }

  /** Minutes closed after `seq`, oldest first. */
  minutesAfter(seq: number): MinuteCandle[] {
    return this.minutes.slice(firstAbove(this.minutes, seq, eventSeq)).map((m) => m.minute);
  }

  /** Message and standings events after `seq`, oldest first. */
  notesAfter(seq: number): NoteEvent[] {
    return this.notes.slice(firstAbove(this.notes, seq, eventSeq));
  }
}
