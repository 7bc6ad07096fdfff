// A taking bot: watches the books over the WebSocket without authenticating (as a spectator may) and
// trades over REST, crossing the spread when a quote strays from the fair value and now and then at
// random. A remainder that would rest is cancelled at once. About two REST requests per action and at
// most a few actions a second stay far under the 100/s limit; it stops adding to a side beyond the
// market's taker position limit. Sizes, pauses and the random-trade chance come from the market's
// `taker` settings.
import { L3Book } from '../web/src/l3-book.ts';
import type { ServerMessage } from '../web/src/server-messages.ts';
import { BotApiError, BotSocket, rest } from './api.ts';
import type { BotEndpoints, BotMarket } from './market.ts';
import type { Prng } from './prng.ts';

interface SubmitReply {
  readonly order: { readonly id: string; readonly remaining: number };
  readonly fills: readonly { readonly quantity: number }[];
  readonly resting: boolean;
}

export class Taker {
  readonly name: string;
  private readonly endpoints: BotEndpoints;
  private readonly apiKey: string;
  private readonly markets: readonly BotMarket[];
  private readonly rng: Prng;
  private readonly socket: BotSocket;
  private readonly books = new Map<string, L3Book>();
  private readonly net = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private actions = 0;
  private acting: Promise<void> = Promise.resolve();
  trades = 0;
  orders = 0;
  /** 429 answers seen; the demo's own test expects none. */
  rateLimited = 0;

  constructor(name: string, endpoints: BotEndpoints, apiKey: string, markets: readonly BotMarket[], rng: Prng) {
    this.name = name;
    this.endpoints = endpoints;
    this.apiKey = apiKey;
    this.markets = markets;
    this.rng = rng;
    for (const m of markets) this.books.set(m.market_id, new L3Book(m.market_id));
    this.socket = new BotSocket(
      endpoints.wsUrl,
      (s) => {
        for (const m of markets) s.send({ op: 'subscribe', channel: 'l3', market: m.market_id });
      },
      (f) => this.onFrame(f),
    );
  }

  start(): void {
    const next = (): void => {
      if (this.stopped) return;
      // The pause is drawn from the settings of the market the next action picks.
      const market = this.markets[this.rng.int(0, this.markets.length - 1)];
      if (market === undefined) return;
      const [lo, hi] = market.settings.taker.interval_ms;
      this.timer = setTimeout(() => {
        this.acting = this.act(market).finally(next);
      }, this.rng.int(lo, hi));
    };
    next();
  }

  /** Stops trading; resolves once the action under way (and its cancel of a remainder) is done. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    await this.acting;
    await this.socket.close();
  }

  private onFrame(message: ServerMessage): void {
    if (message.type !== 'snapshot' && message.type !== 'delta' && message.type !== 'resync_required') return;
    const book = message.market === null ? undefined : this.books.get(message.market);
    if (book === undefined) return;
    if (message.type === 'snapshot') {
      if (message.channel !== 'l2') book.loadSnapshot(message);
    } else if (message.type === 'resync_required' || book.applyDelta(message) === 'gap') {
      book.invalidate();
      // A market still followed gets no new snapshot on subscribe: leave it first.
      this.socket.send({ op: 'unsubscribe', channel: 'l3', market: book.market });
      this.socket.send({ op: 'subscribe', channel: 'l3', market: book.market });
    }
  }

  private async act(market: BotMarket): Promise<void> {
    this.actions += 1;
    if (this.actions % 10 === 1) await this.readPositions();
    const p = market.settings.taker;
    const book = this.books.get(market.market_id);
    const fair = market.fair;
    if (book === undefined || !book.ready || this.stopped) return;
    const bid = book.bestBid();
    const ask = book.bestAsk();
    const net = this.net.get(market.market_id) ?? 0;
    let side: 'BUY' | 'SELL' | null = null;
    if (ask !== null && ask < fair.value) side = 'BUY';
    else if (bid !== null && bid > fair.value) side = 'SELL';
    else if (this.rng.chance(p.random_trade_probability)) side = this.rng.chance(0.5) ? 'BUY' : 'SELL';
    if (side === 'BUY' && (ask === null || net > p.position_limit)) return;
    if (side === 'SELL' && (bid === null || net < -p.position_limit)) return;
    if (side === null) return;
    const price = side === 'BUY' ? (ask as number) : (bid as number);
    const quantity = Math.max(this.rng.int(p.size[0], p.size[1]), market.min_order_quantity);
    this.orders += 1;
    try {
      const reply = await rest<SubmitReply>(this.endpoints.baseUrl, 'POST', '/api/v1/orders', { apiKey: this.apiKey }, { market: market.market_id, side, price, quantity });
      const filled = reply.fills.reduce((s, f) => s + f.quantity, 0);
      this.net.set(market.market_id, net + (side === 'BUY' ? filled : -filled));
      if (filled > 0) this.trades += 1;
      if (reply.resting) await rest(this.endpoints.baseUrl, 'DELETE', `/api/v1/orders/${reply.order.id}`, { apiKey: this.apiKey });
    } catch (err) {
      // A refusal (market settled, trading stopped, limit reached) is part of the game: try again later.
      if (err instanceof BotApiError && err.status === 429) this.rateLimited += 1;
    }
  }

  /** The position as the service has it; the running count above misses fills of a remainder before its cancel. */
  private async readPositions(): Promise<void> {
    try {
      const positions = await rest<{ market: string; net_quantity: number }[]>(this.endpoints.baseUrl, 'GET', '/api/v1/positions', { apiKey: this.apiKey });
      this.net.clear();
      for (const p of positions) this.net.set(p.market, p.net_quantity);
    } catch {
      // keep the running count until the next read
    }
  }
}
