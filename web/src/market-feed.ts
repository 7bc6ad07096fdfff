// The live books of every market the page watches, over the shared socket. It subscribes on each
// (re)connect (with last_sequence, so a short drop replays the missed deltas instead of a snapshot),
// resubscribes for a fresh snapshot on a sequence gap or a resync_required, and keeps the recent trades
// of each market for the trade list and the chart.
import { L3Book, type BookTrade } from './l3-book.ts';
import type { ServerMessage } from './server-messages.ts';

/** What the feed needs of the socket (ExchangeSocket in the page; a fake in the unit tests). */
export interface FeedSocket {
  send(frame: object): boolean;
  onMessage(listener: (message: ServerMessage) => void): unknown;
  /** Runs the hook after every (re)connect. */
  onOpen(hook: () => void): unknown;
}

export interface TapeTrade extends BookTrade {
  readonly market: string;
  /** When the page received it (the l3 trade event carries no time). */
  readonly at: number;
}

const TAPE_LENGTH = 500;

export class MarketFeed {
  private readonly socket: FeedSocket;
  readonly books = new Map<string, L3Book>();
  private readonly tapes = new Map<string, TapeTrade[]>();
  private readonly listeners = new Set<(market: string) => void>();
  /** Fresh snapshots asked for after a gap or a resync_required; shown so a resync is visible. */
  resyncs = 0;

  constructor(socket: FeedSocket) {
    this.socket = socket;
    socket.onMessage((m) => this.handle(m));
    socket.onOpen(() => {
      for (const book of this.books.values()) this.subscribe(book, true);
    });
  }

  onChange(listener: (market: string) => void): void {
    this.listeners.add(listener);
  }

  /** Follows exactly these markets: subscribes to new ones, unsubscribes from those gone. */
  watch(markets: readonly string[]): void {
    const wanted = new Set(markets);
    for (const [market, book] of this.books) {
      if (wanted.has(market)) continue;
      this.books.delete(market);
      this.socket.send({ op: 'unsubscribe', channel: 'l3', market: book.market });
    }
    for (const market of wanted) {
      if (this.books.has(market)) continue;
      const book = new L3Book(market);
      this.books.set(market, book);
      this.subscribe(book, false);
    }
  }

  trades(market: string): readonly TapeTrade[] {
    return this.tapes.get(market) ?? [];
  }

  lastPrice(market: string): number | null {
    const tape = this.tapes.get(market);
    return tape === undefined || tape.length === 0 ? null : (tape[tape.length - 1]?.price ?? null);
  }

  private subscribe(book: L3Book, resume: boolean): void {
    if (resume && book.ready && book.epoch !== null) {
      // The book stays shown while the missed deltas replay; a `snapshot` reply replaces it instead.
      this.socket.send({ op: 'subscribe', channel: 'l3', market: book.market, last_sequence: book.sequence, epoch: book.epoch });
      book.invalidate();
      return;
    }
    book.invalidate();
    this.socket.send({ op: 'subscribe', channel: 'l3', market: book.market });
  }

  /** `followed`: the server still has the subscription (a gap seen here, not a resync_required). */
  private resync(book: L3Book, followed = false): void {
    this.resyncs += 1;
    book.epoch = null;
    // A market still followed gets no new snapshot on subscribe: leave it first.
    if (followed) this.socket.send({ op: 'unsubscribe', channel: 'l3', market: book.market });
    this.subscribe(book, false);
    this.emit(book.market);
  }

  private handle(message: ServerMessage): void {
    switch (message.type) {
      case 'snapshot': {
        if (message.channel === 'l2') return;
        const book = this.books.get(message.market);
        if (book === undefined) return;
        book.loadSnapshot(message);
        this.emit(book.market);
        return;
      }
      case 'subscribed': {
        const book = this.books.get(message.market);
        if (book === undefined || book.sequence !== message.last_sequence) return;
        book.ready = true;
        return;
      }
      case 'delta': {
        const book = this.books.get(message.market);
        if (book === undefined) return;
        const outcome = book.applyDelta(message, (trade) => this.record(book.market, trade));
        if (outcome === 'gap') this.resync(book, true);
        else if (outcome === 'applied') this.emit(book.market);
        return;
      }
      case 'resync_required': {
        if (message.channel === 'l3' && message.market !== null) {
          const book = this.books.get(message.market);
          if (book !== undefined) this.resync(book);
        }
        return;
      }
      default:
        return;
    }
  }

  private record(market: string, trade: BookTrade): void {
    let tape = this.tapes.get(market);
    if (tape === undefined) {
      tape = [];
      this.tapes.set(market, tape);
    }
    tape.push({ ...trade, market, at: Date.now() });
    if (tape.length > TAPE_LENGTH) tape.splice(0, tape.length - TAPE_LENGTH);
  }

  private emit(market: string): void {
    for (const l of this.listeners) l(market);
  }
}
