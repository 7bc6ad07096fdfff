// The WebSocket client: authenticates, subscribes to the l3 (and trades) channels of several markets,
// keeps one L3Book per market, correlates request_ids with promises, and survives the network: on a
// gap, a desync or resync_required it resubscribes; on a lost connection it reconnects with backoff,
// authenticates again and resumes every book from its last sequence and epoch (the server replays the
// missed deltas or sends a fresh snapshot). Trading ops pending when the connection drops fail with
// `disconnected` (their outcome is unknown: retry with the same client_order_id to stay idempotent).
import { BookDesyncError, L3Book } from './book.ts';
import { ExchangeError } from './errors.ts';
import type {
  AdminMessage, Authenticated, CancelAllAck, FillMessage, L3Delta, OrderAck, OrderRef, OrderState, ResyncRequired, ServerMessage, Snapshot, SubmitAck, SubmitOrderArgs, TradeMessage,
} from './messages.ts';
import { checkRef, checkSubmit, marketSymbol, positiveInteger } from './validate.ts';

/** The part of the WebSocket interface used here: `ws` in Node and the browser's WebSocket both have it. */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((ev: unknown) => void) | null;
  onclose: ((ev: { code: number; reason: string }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
}
export type WebSocketConstructor = new (url: string) => WebSocketLike;

export interface ExchangeSocketOptions {
  /** ws://host:port/ws */
  readonly url: string;
  /** Needed for trading ops and private events; market data works without. */
  readonly apiKey?: string;
  /** Markets whose l3 book to keep. More can be added with subscribe(). */
  readonly markets?: readonly string[];
  /** Markets whose public trades channel to receive. */
  readonly trades?: readonly string[];
  /** Ask the exchange to cancel this trader's orders when its last such connection closes. */
  readonly cancelOnDisconnect?: boolean;
  /** How long a trading op waits for its ack or reject; default 10 s. */
  readonly requestTimeoutMs?: number;
  /** Reconnect after a lost connection (default true), waiting initialDelayMs doubling to maxDelayMs. */
  readonly reconnect?: boolean;
  readonly initialDelayMs?: number;
  readonly maxDelayMs?: number;
  /** Defaults to the global WebSocket (browsers, Node >= 22) or the `ws` package. */
  readonly WebSocket?: WebSocketConstructor;
}

export interface SocketEvents {
  /** Connected and (with an api key) authenticated; `reconnect` is true after a reconnect. */
  ready: (info: { reconnect: boolean; trader: Authenticated | null }) => void;
  /** The book of a market changed (after a snapshot, a resume or a delta). */
  book: (book: L3Book, delta: L3Delta | null) => void;
  /** A book is being rebuilt: its local copy is stale until the next `book` event. */
  resync: (market: string, reason: string) => void;
  fill: (message: FillMessage) => void;
  order_state: (message: OrderState) => void;
  trade: (message: TradeMessage) => void;
  admin_message: (message: AdminMessage) => void;
  /** The account must be re-read (resync_required on the account channel). */
  account_resync: (message: ResyncRequired) => void;
  /** An error frame, or a failure of the connection. */
  error: (error: ExchangeError) => void;
  disconnected: (info: { code: number; reason: string; willReconnect: boolean }) => void;
  /** Every frame, parsed, before it is handled. */
  message: (message: ServerMessage) => void;
}

interface Pending {
  readonly resolve: (frame: never) => void;
  readonly reject: (err: ExchangeError) => void;
  readonly deadline: number;
  readonly op: string;
}

const OPEN = 1;

async function defaultWebSocket(): Promise<WebSocketConstructor> {
  try {
    // Node: the `ws` package (faster than the built-in client); browsers never reach this import.
    const mod = (await import('ws')) as unknown as { WebSocket: WebSocketConstructor };
    return mod.WebSocket;
  } catch {
    const global = (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    if (global === undefined) throw new ExchangeError(0, 'not_connected', 'no WebSocket implementation: install ws or pass options.WebSocket');
    return global;
  }
}

export class ExchangeSocket {
  /** One book per subscribed market. */
  readonly books = new Map<string, L3Book>();
  /** Deltas that arrived twice (after a resume) and were ignored; gaps that forced a resubscribe. */
  readonly stats = { duplicates: 0, gaps: 0, resyncs: 0, reconnects: 0 };
  trader: Authenticated | null = null;
  private readonly options: ExchangeSocketOptions;
  private readonly tradeMarkets = new Set<string>();
  private readonly listeners = new Map<keyof SocketEvents, Set<(...args: never[]) => void>>();
  private readonly pending = new Map<string, Pending>();
  private ws: WebSocketLike | null = null;
  private nextId = 1;
  private closedByUser = false;
  private attempts = 0;
  private connected = false;
  private reconnectTimer: ReturnType<typeof setTimeout> | null = null;
  private readyWaiters: { resolve: () => void; reject: (e: ExchangeError) => void }[] = [];
  // One sweep for every pending op rather than a timer each (a timer per op costs more than the op).
  private sweeper: ReturnType<typeof setInterval> | null = null;

  constructor(options: ExchangeSocketOptions) {
    this.options = options;
    for (const m of options.markets ?? []) this.books.set(marketSymbol(m), new L3Book(m));
    for (const m of options.trades ?? []) this.tradeMarkets.add(marketSymbol(m));
  }

  on<E extends keyof SocketEvents>(event: E, listener: SocketEvents[E]): this {
    let set = this.listeners.get(event);
    if (set === undefined) {
      set = new Set();
      this.listeners.set(event, set);
    }
    set.add(listener as (...args: never[]) => void);
    return this;
  }

  off<E extends keyof SocketEvents>(event: E, listener: SocketEvents[E]): this {
    this.listeners.get(event)?.delete(listener as (...args: never[]) => void);
    return this;
  }

  private emit<E extends keyof SocketEvents>(event: E, ...args: Parameters<SocketEvents[E]>): void {
    const set = this.listeners.get(event);
    if (set === undefined) return;
    for (const l of set) (l as unknown as (...a: Parameters<SocketEvents[E]>) => void)(...args);
  }

  /** Opens the connection; resolves once authenticated (with an api key) and every subscribe is sent. */
  async connect(): Promise<this> {
    this.closedByUser = false;
    const ready = new Promise<void>((resolve, reject) => this.readyWaiters.push({ resolve, reject }));
    await this.open();
    await ready;
    return this;
  }

  get isConnected(): boolean {
    return this.connected;
  }

  private async open(): Promise<void> {
    const Ctor = this.options.WebSocket ?? (await defaultWebSocket());
    const ws = new Ctor(this.options.url);
    this.ws = ws;
    ws.onopen = () => {
      if (this.options.apiKey !== undefined) {
        this.sendRaw({ op: 'authenticate', api_key: this.options.apiKey, ...(this.options.cancelOnDisconnect === true ? { cancel_on_disconnect: true } : {}) });
      } else this.onReady();
    };
    ws.onmessage = (ev) => this.onFrame(typeof ev.data === 'string' ? ev.data : String(ev.data));
    ws.onerror = () => {
      // the close that follows carries what is known
    };
    ws.onclose = (ev) => this.onClose(ws, ev.code, ev.reason);
  }

  private onReady(): void {
    const reconnect = this.attempts > 0 || this.stats.reconnects > 0;
    this.connected = true;
    this.attempts = 0;
    for (const book of this.books.values()) this.subscribeBook(book);
    for (const m of this.tradeMarkets) this.sendRaw({ op: 'subscribe', channel: 'trades', market: m });
    for (const w of this.readyWaiters.splice(0)) w.resolve();
    this.emit('ready', { reconnect, trader: this.trader });
  }

  private onClose(ws: WebSocketLike, code: number, reason: string): void {
    if (this.ws !== ws) return;
    this.ws = null;
    this.connected = false;
    const err = new ExchangeError(0, 'disconnected', `connection closed (${code}${reason === '' ? '' : ` ${reason}`}) before the answer`);
    for (const [id, p] of this.pending) {
      this.pending.delete(id);
      p.reject(err);
    }
    const willReconnect = !this.closedByUser && this.options.reconnect !== false;
    this.emit('disconnected', { code, reason, willReconnect });
    if (!willReconnect) {
      for (const w of this.readyWaiters.splice(0)) w.reject(err);
      return;
    }
    const initial = this.options.initialDelayMs ?? 100;
    const delay = Math.min(this.options.maxDelayMs ?? 5000, initial * 2 ** this.attempts) * (0.5 + Math.random() / 2);
    this.attempts++;
    this.stats.reconnects++;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      if (!this.closedByUser) this.open().catch((e: unknown) => this.emit('error', e instanceof ExchangeError ? e : new ExchangeError(0, 'disconnected', String(e))));
    }, delay);
  }

  /** Closes for good: no reconnect; pending ops fail with `disconnected`. */
  async close(): Promise<void> {
    this.closedByUser = true;
    if (this.reconnectTimer !== null) clearTimeout(this.reconnectTimer);
    if (this.sweeper !== null) clearInterval(this.sweeper);
    this.sweeper = null;
    const ws = this.ws;
    if (ws === null) return;
    await new Promise<void>((resolve) => {
      const previous = ws.onclose;
      ws.onclose = (ev) => {
        previous?.(ev);
        resolve();
      };
      ws.close(1000, 'client closed');
    });
  }

  /** Drops the connection as a network failure would (the client reconnects and resumes); for tests and drills. */
  dropConnection(): void {
    const ws = this.ws as (WebSocketLike & { terminate?: () => void }) | null;
    if (ws === null) return;
    if (typeof ws.terminate === 'function') ws.terminate();
    else ws.close(4000, 'dropped');
  }

  /** Keeps the l3 book of another market. */
  subscribe(market: string): L3Book {
    marketSymbol(market);
    let book = this.books.get(market);
    if (book === undefined) {
      book = new L3Book(market);
      this.books.set(market, book);
      if (this.connected) this.subscribeBook(book);
    }
    return book;
  }

  unsubscribe(market: string): void {
    if (!this.books.delete(market)) return;
    if (this.connected) this.sendRaw({ op: 'unsubscribe', channel: 'l3', market });
  }

  subscribeTrades(market: string): void {
    if (this.tradeMarkets.has(marketSymbol(market))) return;
    this.tradeMarkets.add(market);
    if (this.connected) this.sendRaw({ op: 'subscribe', channel: 'trades', market });
  }

  book(market: string): L3Book | undefined {
    return this.books.get(market);
  }

  private subscribeBook(book: L3Book): void {
    // With a book in hand, ask to resume after it: the server replays the missed deltas, or answers
    // with a fresh snapshot when it cannot (another epoch, or they left its ring).
    const resume = book.synced && book.epoch !== null ? { last_sequence: book.sequence, epoch: book.epoch } : {};
    this.sendRaw({ op: 'subscribe', channel: 'l3', market: book.market, ...resume });
  }

  private resubscribe(book: L3Book, reason: string): void {
    this.stats.resyncs++;
    book.clear();
    this.emit('resync', book.market, reason);
    // A subscribe to a market the connection follows is answered without a snapshot: leave it first.
    if (this.connected) {
      this.sendRaw({ op: 'unsubscribe', channel: 'l3', market: book.market });
      this.subscribeBook(book);
    }
  }

  // async: a malformed argument rejects the returned promise, like every other failure.
  async submitOrder(args: SubmitOrderArgs): Promise<SubmitAck> {
    return this.trade<SubmitAck>({ op: 'submit_order', ...checkSubmit(args) });
  }

  async cancelOrder(ref: OrderRef): Promise<OrderAck> {
    return this.trade<OrderAck>({ op: 'cancel_order', ...checkRef(ref) });
  }

  async amendOrder(ref: OrderRef, remaining: number): Promise<OrderAck> {
    return this.trade<OrderAck>({ op: 'amend_order', ...checkRef(ref), remaining: positiveInteger('remaining', remaining) });
  }

  async cancelAll(market?: string): Promise<CancelAllAck> {
    return this.trade<CancelAllAck>({ op: 'cancel_all', ...(market === undefined ? {} : { market: marketSymbol(market) }) });
  }

  /** Round trip to the server (resolves with the milliseconds it took). */
  async ping(): Promise<number> {
    const start = performance.now();
    await this.trade<unknown>({ op: 'ping' });
    return performance.now() - start;
  }

  private trade<T>(frame: Record<string, unknown>): Promise<T> {
    const ws = this.ws;
    if (ws === null || !this.connected || ws.readyState !== OPEN) return Promise.reject(new ExchangeError(0, 'not_connected', 'not connected'));
    const requestId = `r${this.nextId++}`;
    const timeout = this.options.requestTimeoutMs ?? 10_000;
    this.sweeper ??= setInterval(() => this.sweep(), Math.max(10, Math.min(100, timeout / 4)));
    return new Promise<T>((resolve, reject) => {
      this.pending.set(requestId, { resolve: resolve as (f: never) => void, reject, deadline: performance.now() + timeout, op: String(frame['op']) });
      frame['request_id'] = requestId;
      ws.send(JSON.stringify(frame));
    });
  }

  /** Fails the ops whose answer is overdue (oldest first: the map keeps sending order). */
  private sweep(): void {
    const now = performance.now();
    for (const [id, p] of this.pending) {
      if (p.deadline > now) break;
      this.pending.delete(id);
      p.reject(new ExchangeError(0, 'timeout', `no answer to ${p.op} ${id} within ${this.options.requestTimeoutMs ?? 10_000} ms`));
    }
    if (this.pending.size === 0 && this.sweeper !== null) {
      clearInterval(this.sweeper);
      this.sweeper = null;
    }
  }

  private sendRaw(frame: Record<string, unknown>): void {
    const ws = this.ws;
    if (ws !== null && ws.readyState === OPEN) ws.send(JSON.stringify(frame));
  }

  private settle(requestId: string | null | undefined, frame: ServerMessage, error: ExchangeError | null): boolean {
    if (requestId === null || requestId === undefined) return false;
    const p = this.pending.get(requestId);
    if (p === undefined) return false;
    this.pending.delete(requestId);
    if (error === null) p.resolve(frame as never);
    else p.reject(error);
    return true;
  }

  private onFrame(text: string): void {
    let m: ServerMessage;
    try {
      m = JSON.parse(text) as ServerMessage;
    } catch {
      this.emit('error', new ExchangeError(0, 'protocol', `a frame that is not JSON: ${text.slice(0, 100)}`));
      return;
    }
    this.emit('message', m);
    switch (m.type) {
      case 'delta':
        this.onDelta(m);
        return;
      case 'ack':
      case 'pong':
        this.settle(m.request_id, m, null);
        return;
      case 'reject':
        this.settle(m.request_id, m, ExchangeError.fromCode(m.code, m.message, m.retry_after_ms));
        return;
      case 'snapshot':
        this.onSnapshot(m);
        return;
      case 'subscribed': {
        if (m.channel !== 'l3' || m.already_subscribed === true) return;
        const book = this.books.get(m.market);
        // A resume from another sequence than ours cannot happen; if it did, start over.
        if (book !== undefined && book.sequence !== m.last_sequence) this.resubscribe(book, 'resume from an unexpected sequence');
        else if (book !== undefined) this.emit('book', book, null);
        return;
      }
      case 'fill':
        this.emit('fill', m);
        return;
      case 'order_state':
        this.emit('order_state', m);
        return;
      case 'trade':
        this.emit('trade', m);
        return;
      case 'admin_message':
        this.emit('admin_message', m);
        return;
      case 'authenticated':
        this.trader = m;
        this.onReady();
        return;
      case 'resync_required':
        this.onResync(m);
        return;
      case 'error': {
        const err = ExchangeError.fromCode(m.code, m.message);
        if (this.settle(m.request_id, m, err)) return;
        if (!this.connected && (m.code === 'invalid_api_key' || m.code === 'unauthenticated')) {
          // A refused key will not be accepted on a retry either.
          this.closedByUser = true;
          for (const w of this.readyWaiters.splice(0)) w.reject(err);
          this.ws?.close(1000, 'authentication refused');
        }
        this.emit('error', err);
        return;
      }
      case 'heartbeat':
      case 'unsubscribed':
        return;
    }
  }

  private onSnapshot(m: Snapshot): void {
    const book = this.books.get(m.market);
    if (book === undefined) return;
    book.reset(m);
    this.emit('book', book, null);
  }

  private onDelta(m: L3Delta): void {
    const book = this.books.get(m.market);
    if (book === undefined || !book.synced) return;
    let result: 'applied' | 'duplicate' | 'gap';
    try {
      result = book.apply(m);
    } catch (err) {
      if (!(err instanceof BookDesyncError)) throw err;
      this.resubscribe(book, err.message);
      return;
    }
    if (result === 'applied') this.emit('book', book, m);
    else if (result === 'duplicate') this.stats.duplicates++;
    else {
      this.stats.gaps++;
      this.resubscribe(book, `gap: expected sequence ${book.sequence + 1}, got ${m.sequence}`);
    }
  }

  private onResync(m: ResyncRequired): void {
    if (m.channel === 'account') {
      this.emit('account_resync', m);
      return;
    }
    if (m.market === null) return;
    if (m.channel === 'trades') {
      this.sendRaw({ op: 'subscribe', channel: 'trades', market: m.market });
      return;
    }
    const book = this.books.get(m.market);
    if (book !== undefined) this.resubscribe(book, m.reason);
  }
}
