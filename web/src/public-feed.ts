// The spectator's market data, all on the conflated public channels: a ticker for every market (the
// market list), the l2 price levels of the market being looked at, and the live standings when the
// organizer made them public. Its cost does not grow with the order rate: the server sends at most one
// update per market per interval. Resubscribes on every (re)connect, and for a fresh l2 snapshot after
// a sequence gap or a resync_required.
import { L2Book } from './l2-book.ts';
import type { FeedSocket } from './market-feed.ts';
import type { ServerMessage, StandingsRow, TickerMessage } from './server-messages.ts';

/** A point of the live price chart as the ticker shows it: the last trade of an interval and how many there were. */
export interface TickerTrade {
  readonly market: string;
  readonly price: number;
  readonly quantity: number;
  /** Trades in this interval (the entry shows the last one). */
  readonly trades: number;
  readonly at: number;
}

const TAPE_LENGTH = 500;

export class PublicFeed {
  private readonly socket: FeedSocket;
  readonly tickers = new Map<string, TickerMessage>();
  private readonly tapes = new Map<string, TickerTrade[]>();
  private watched = new Set<string>();
  book: L2Book | null = null;
  /** null until the server answered; false: standings are not public. */
  standingsPublic: boolean | null = null;
  standings: readonly StandingsRow[] = [];
  resyncs = 0;
  private readonly listeners = new Set<() => void>();

  constructor(socket: FeedSocket) {
    this.socket = socket;
    socket.onMessage((m) => this.handle(m));
    socket.onOpen(() => {
      for (const market of this.watched) this.socket.send({ op: 'subscribe', channel: 'ticker', market });
      if (this.book !== null) this.subscribeBook(this.book);
      this.socket.send({ op: 'subscribe', channel: 'standings' });
    });
  }

  onChange(listener: () => void): void {
    this.listeners.add(listener);
  }

  /** Follows the tickers of exactly these markets. */
  watch(markets: readonly string[]): void {
    const wanted = new Set(markets);
    for (const market of this.watched) {
      if (wanted.has(market)) continue;
      this.socket.send({ op: 'unsubscribe', channel: 'ticker', market });
      this.tickers.delete(market);
    }
    for (const market of wanted) if (!this.watched.has(market)) this.socket.send({ op: 'subscribe', channel: 'ticker', market });
    this.watched = wanted;
  }

  /** Shows the l2 book of this market (null: none). */
  showBook(market: string | null): void {
    if (this.book?.market === market) return;
    if (this.book !== null) this.socket.send({ op: 'unsubscribe', channel: 'l2', market: this.book.market });
    this.book = market === null ? null : new L2Book(market);
    if (this.book !== null) this.subscribeBook(this.book);
    this.emit();
  }

  trades(market: string): readonly TickerTrade[] {
    return this.tapes.get(market) ?? [];
  }

  private subscribeBook(book: L2Book): void {
    book.invalidate();
    this.socket.send({ op: 'subscribe', channel: 'l2', market: book.market });
  }

  private handle(message: ServerMessage): void {
    switch (message.type) {
      case 'snapshot':
        if (message.channel === 'l2' && this.book?.market === message.market) {
          this.book.loadSnapshot(message);
          this.emit();
        }
        return;
      case 'update': {
        const book = this.book;
        if (book === null || book.market !== message.market) return;
        const outcome = book.applyUpdate(message);
        if (outcome === 'gap') this.resync(book);
        else if (outcome === 'applied') this.emit();
        return;
      }
      case 'resync_required':
        if (message.channel === 'l2' && this.book !== null && this.book.market === message.market) this.resync(this.book);
        return;
      case 'ticker':
        this.onTicker(message);
        return;
      case 'standings':
        this.standingsPublic = true;
        this.standings = message.rows;
        this.emit();
        return;
      case 'error':
        if (message.code === 'standings_not_public') {
          this.standingsPublic = false;
          this.emit();
        }
        return;
      default:
        return;
    }
  }

  private onTicker(ticker: TickerMessage): void {
    if (!this.watched.has(ticker.market)) return;
    const before = this.tickers.get(ticker.market);
    this.tickers.set(ticker.market, ticker);
    // The first ticker only says where the session stands; later ones add the interval's trades.
    if (before !== undefined && ticker.trades > before.trades && ticker.last_price !== null && ticker.last_quantity !== null) {
      let tape = this.tapes.get(ticker.market);
      if (tape === undefined) {
        tape = [];
        this.tapes.set(ticker.market, tape);
      }
      tape.push({ market: ticker.market, price: ticker.last_price, quantity: ticker.last_quantity, trades: ticker.trades - before.trades, at: Date.now() });
      if (tape.length > TAPE_LENGTH) tape.splice(0, tape.length - TAPE_LENGTH);
    }
    this.emit();
  }

  private resync(book: L2Book): void {
    this.resyncs += 1;
    this.subscribeBook(book);
    this.emit();
  }

  private emit(): void {
    for (const l of this.listeners) l();
  }
}
