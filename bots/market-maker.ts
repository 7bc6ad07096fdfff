// A market-making bot: trades over the WebSocket (submit_order / cancel_order) and reads its positions
// over REST once a cycle. Each cycle it pulls its quotes and sets a ladder of bids and asks around the
// fair value, skewed against its inventory; beyond the inventory limit it quotes only the side that
// reduces it. Spread, levels, sizes, skew and the cycle come from the market's `maker` settings.
import type { ServerMessage } from '../web/src/server-messages.ts';
import { BotApiError, BotSocket, rest } from './api.ts';
import type { BotEndpoints, BotMarket } from './market.ts';
import type { Prng } from './prng.ts';

interface Resting {
  readonly id: string;
  readonly market: string;
}

export class MarketMaker {
  readonly name: string;
  private readonly endpoints: BotEndpoints;
  private readonly apiKey: string;
  private readonly markets: readonly BotMarket[];
  private readonly rng: Prng;
  private readonly socket: BotSocket;
  private readonly resting = new Map<string, Resting>();
  private readonly net = new Map<string, number>();
  private readonly timers: NodeJS.Timeout[] = [];
  private requestSeq = 0;
  private stopped = false;
  rejects = 0;
  orders = 0;
  /** 429 answers seen (a well-configured bot sees none). */
  rateLimited = 0;

  constructor(name: string, endpoints: BotEndpoints, apiKey: string, markets: readonly BotMarket[], rng: Prng) {
    this.name = name;
    this.endpoints = endpoints;
    this.apiKey = apiKey;
    this.markets = markets;
    this.rng = rng;
    this.socket = new BotSocket(endpoints.wsUrl, (s) => s.send({ op: 'authenticate', api_key: apiKey }), (f) => this.onFrame(f));
  }

  /**
   * Markets with the same requote interval share one cycle (one positions read per cycle). The first
   * cycle waits for the socket: quotes sent before it opens would be dropped, and a market with a long
   * requote interval would stay without a ladder until its next cycle.
   */
  start(): void {
    void this.socket.opened.then(() => {
      if (!this.stopped) this.startCycles();
    });
  }

  private startCycles(): void {
    const byInterval = new Map<number, BotMarket[]>();
    for (const m of this.markets) {
      const list = byInterval.get(m.settings.maker.requote_ms) ?? [];
      list.push(m);
      byInterval.set(m.settings.maker.requote_ms, list);
    }
    for (const [ms, markets] of byInterval) {
      void this.cycle(markets);
      this.timers.push(setInterval(() => void this.cycle(markets), ms));
    }
  }

  /** Stops quoting and closes the socket (the orders it left are canceled by the caller over REST). */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    await this.socket.close();
  }

  private onFrame(message: ServerMessage): void {
    switch (message.type) {
      case 'ack':
        if (message.op === 'submit_order' && message.order !== undefined && message.resting === true) this.resting.set(message.order.id, { id: message.order.id, market: message.order.market });
        return;
      case 'order_state':
        if (message.status === 'open') this.resting.set(message.order.id, { id: message.order.id, market: message.order.market });
        else this.resting.delete(message.order.id);
        return;
      case 'reject':
        this.rejects += 1;
        return;
      case 'resync_required':
        if (message.channel === 'account') this.resting.clear();
        return;
      default:
        return;
    }
  }

  private async cycle(markets: readonly BotMarket[]): Promise<void> {
    try {
      const positions = await rest<{ market: string; net_quantity: number }[]>(this.endpoints.baseUrl, 'GET', '/api/v1/positions', { apiKey: this.apiKey });
      this.net.clear();
      for (const p of positions) this.net.set(p.market, p.net_quantity);
    } catch (err) {
      if (err instanceof BotApiError && err.status === 429) this.rateLimited += 1;
      return; // the service is going away or refused: try again next cycle
    }
    if (this.stopped) return;
    for (const market of markets) this.requote(market);
  }

  private requote(market: BotMarket): void {
    const p = market.settings.maker;
    const fair = market.fair;
    for (const order of [...this.resting.values()]) {
      if (order.market !== market.market_id) continue;
      this.socket.send({ op: 'cancel_order', request_id: this.nextId(), order_id: order.id });
      this.resting.delete(order.id);
    }
    const net = this.net.get(market.market_id) ?? 0;
    const tick = market.tick_size;
    // Lean against inventory: long shifts both quotes down, short shifts them up.
    const skew = -Math.round(net * p.inventory_skew_ticks_per_unit) * tick;
    const center = fair.snap(fair.value + skew + this.rng.int(-1, 1) * tick);
    const halfSpread = this.rng.int(p.half_spread_ticks[0], p.half_spread_ticks[1]) * tick;
    let offset = halfSpread;
    for (let level = 0; level < p.levels; level++) {
      if (level > 0) offset += this.rng.int(p.level_step_ticks[0], p.level_step_ticks[1]) * tick;
      const bid = fair.snap(center - Math.max(offset, tick));
      const ask = fair.snap(center + Math.max(offset, tick));
      if (net < p.inventory_limit) this.submit(market, 'BUY', bid, this.rng.int(p.size[0], p.size[1]));
      if (net > -p.inventory_limit) this.submit(market, 'SELL', ask, this.rng.int(p.size[0], p.size[1]));
    }
  }

  private submit(market: BotMarket, side: 'BUY' | 'SELL', price: number, quantity: number): void {
    if (this.socket.send({ op: 'submit_order', request_id: this.nextId(), market: market.market_id, side, price, quantity: Math.max(quantity, market.min_order_quantity) })) this.orders += 1;
  }

  private nextId(): string {
    this.requestSeq += 1;
    return `${this.name}-${this.requestSeq}`;
  }
}
