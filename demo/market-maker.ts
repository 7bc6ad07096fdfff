// A market-making bot: trades over the WebSocket (submit_order / cancel_order, which the rate limit
// does not count) and reads its positions over REST once a cycle (1 request per second, far under the
// 100/s limit). Each cycle it pulls its quotes and sets a ladder of bids and asks around the fair value,
// skewed against its inventory; beyond ±300 it quotes only the side that reduces it, so its worst-case
// exposure (position plus resting orders) stays far inside ±1000.
import type { ServerMessage } from '../web/src/server-messages.ts';
import { DemoApiError, DemoSocket, rest } from './demo-api.ts';
import type { DemoMarket } from './demo-market.ts';
import type { FairValue } from './fair-value.ts';
import type { Prng } from './prng.ts';

export interface BotEndpoints {
  readonly baseUrl: string;
  readonly wsUrl: string;
}

const LEVELS = 3;
const INVENTORY_SOFT_LIMIT = 300;

interface Resting {
  readonly id: string;
  readonly market: string;
}

export class MarketMaker {
  readonly name: string;
  private readonly endpoints: BotEndpoints;
  private readonly apiKey: string;
  private readonly markets: readonly DemoMarket[];
  private readonly fair: ReadonlyMap<string, FairValue>;
  private readonly rng: Prng;
  private readonly socket: DemoSocket;
  private readonly resting = new Map<string, Resting>();
  private readonly net = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private requestSeq = 0;
  rejects = 0;
  /** 429 answers seen; the demo's own test expects none. */
  rateLimited = 0;

  constructor(name: string, endpoints: BotEndpoints, apiKey: string, markets: readonly DemoMarket[], fair: ReadonlyMap<string, FairValue>, rng: Prng) {
    this.name = name;
    this.endpoints = endpoints;
    this.apiKey = apiKey;
    this.markets = markets;
    this.fair = fair;
    this.rng = rng;
    this.socket = new DemoSocket(endpoints.wsUrl, (s) => s.send({ op: 'authenticate', api_key: apiKey }), (f) => this.onFrame(f));
  }

  start(intervalMs: number): void {
    void this.cycle();
    this.timer = setInterval(() => void this.cycle(), intervalMs);
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.socket.close();
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

  private async cycle(): Promise<void> {
    try {
      const positions = await rest<{ market: string; net_quantity: number }[]>(this.endpoints.baseUrl, 'GET', '/api/v1/positions', { apiKey: this.apiKey });
      this.net.clear();
      for (const p of positions) this.net.set(p.market, p.net_quantity);
    } catch (err) {
      if (err instanceof DemoApiError && err.status === 429) this.rateLimited += 1;
      return; // the service is going away or refused: try again next cycle
    }
    for (const market of this.markets) this.requote(market);
  }

  private requote(market: DemoMarket): void {
    const fair = this.fair.get(market.market_id);
    if (fair === undefined) return;
    for (const order of [...this.resting.values()]) {
      if (order.market !== market.market_id) continue;
      this.socket.send({ op: 'cancel_order', request_id: this.nextId(), order_id: order.id });
      this.resting.delete(order.id);
    }
    const net = this.net.get(market.market_id) ?? 0;
    const tick = market.tick_size;
    // Lean against inventory: long shifts both quotes down, short shifts them up.
    const skew = -Math.round(net / 50) * tick;
    const center = fair.snap(fair.value + skew + this.rng.int(-1, 1) * tick);
    const halfSpread = this.rng.int(1, 2) * tick;
    for (let level = 0; level < LEVELS; level++) {
      const offset = halfSpread + level * this.rng.int(1, 3) * tick;
      if (net < INVENTORY_SOFT_LIMIT) this.submit(market.market_id, 'BUY', fair.snap(center - offset), this.rng.int(1, 12));
      if (net > -INVENTORY_SOFT_LIMIT) this.submit(market.market_id, 'SELL', fair.snap(center + offset), this.rng.int(1, 12));
    }
  }

  private submit(market: string, side: 'BUY' | 'SELL', price: number, quantity: number): void {
    this.socket.send({ op: 'submit_order', request_id: this.nextId(), market, side, price, quantity });
  }

  private nextId(): string {
    this.requestSeq += 1;
    return `${this.name}-${this.requestSeq}`;
  }
}
