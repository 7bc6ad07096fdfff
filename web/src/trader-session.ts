// A trader's view of the exchange, with the API key from localStorage: loaded over REST, then kept live
// by the socket's private events (fill, order_state) after authenticating. The leaderboard and the
// portfolio are re-read on a slow timer and shortly after each fill; that stays far below the
// per-trader rate limit.
import { ApiError, apiRequest, describeError } from './api.ts';
import type { Fill, LeaderboardRow, Order, Portfolio, Position, Side, TraderProfile } from './api-types.ts';
import type { ExchangeSocket } from './exchange-socket.ts';
import { credentials } from './storage.ts';

const POLL_MS = 3_000;
const FILLS_KEPT = 200;

export type SocketAuth = 'none' | 'pending' | 'authenticated' | 'refused';

export class TraderSession {
  private readonly socket: ExchangeSocket;
  apiKey: string | null = credentials.traderKey();
  profile: TraderProfile | null = null;
  positions: readonly Position[] = [];
  positionLimit = 1000;
  /** Each market's own position limit (the portfolio's position_limits). */
  positionLimits: Readonly<Record<string, number>> = {};
  readonly openOrders = new Map<string, Order>();
  /** Newest first. */
  fills: Fill[] = [];
  leaderboard: readonly LeaderboardRow[] = [];
  socketAuth: SocketAuth = 'none';
  error: string | null = null;
  // Sides of this trader's orders, so a fill (which names only order ids) can show buy or sell.
  private readonly sides = new Map<string, Side>();
  private readonly listeners = new Set<() => void>();
  private timer: number | null = null;
  private refreshSoon: number | null = null;

  constructor(socket: ExchangeSocket) {
    this.socket = socket;
    socket.onOpen(() => this.authenticateSocket());
    socket.onMessage((m) => {
      if (this.apiKey === null) return;
      switch (m.type) {
        case 'authenticated':
          this.socketAuth = 'authenticated';
          this.emit();
          return;
        case 'error':
          if (m.code === 'invalid_api_key') {
            this.socketAuth = 'refused';
            this.emit();
          }
          return;
        case 'fill':
          if (!this.fills.some((f) => f.fill_id === m.fill.fill_id)) {
            this.fills.unshift(m.fill);
            if (this.fills.length > FILLS_KEPT) this.fills.length = FILLS_KEPT;
          }
          this.scheduleRefresh();
          this.emit();
          return;
        case 'order_state':
          this.sides.set(m.order.id, m.order.side);
          if (m.status === 'open') this.openOrders.set(m.order.id, m.order);
          else this.openOrders.delete(m.order.id);
          this.emit();
          return;
        case 'resync_required':
          // An operator reset cleared every order, position and fill: read them again.
          if (m.channel === 'account') void this.reload();
          return;
        default:
          return;
      }
    });
  }

  onChange(listener: () => void): void {
    this.listeners.add(listener);
  }

  /** Resumes a stored key at page load. */
  start(): void {
    if (this.apiKey !== null) void this.useKey(this.apiKey);
  }

  async useKey(apiKey: string): Promise<boolean> {
    try {
      const profile = await apiRequest<TraderProfile>('GET', '/api/v1/user', { apiKey });
      this.apiKey = apiKey;
      this.profile = profile;
      this.error = null;
      credentials.setTraderKey(apiKey);
      this.authenticateSocket();
      await this.reload();
      if (this.timer === null) this.timer = window.setInterval(() => void this.refreshSlow(), POLL_MS);
      return true;
    } catch (err) {
      // A key the service refuses is forgotten; a network failure keeps it for the next attempt.
      if (err instanceof ApiError && err.status === 401) this.forget();
      this.error = describeError(err);
      this.emit();
      return false;
    }
  }

  forget(): void {
    credentials.setTraderKey(null);
    this.apiKey = null;
    this.profile = null;
    this.positions = [];
    this.openOrders.clear();
    this.fills = [];
    this.leaderboard = [];
    this.socketAuth = 'none';
    if (this.timer !== null) window.clearInterval(this.timer);
    this.timer = null;
    this.emit();
  }

  async reload(): Promise<void> {
    const apiKey = this.apiKey;
    if (apiKey === null) return;
    try {
      const [orders, fills] = await Promise.all([apiRequest<Order[]>('GET', '/api/v1/open-orders', { apiKey }), apiRequest<Fill[]>('GET', '/api/v1/fills', { apiKey })]);
      this.openOrders.clear();
      for (const o of orders) {
        this.openOrders.set(o.id, o);
        this.sides.set(o.id, o.side);
      }
      this.fills = fills.slice(-FILLS_KEPT).reverse();
      await this.refreshSlow();
    } catch (err) {
      this.error = describeError(err);
      this.emit();
    }
  }

  /** The trader's side of a fill: its own order's (the maker's when it provided the liquidity). */
  sideOf(fill: Fill): Side | null {
    return this.sides.get(fill.liquidity === 'maker' ? fill.maker_order_id : fill.taker_order_id) ?? null;
  }

  /** Trader REST call with the session's key; errors propagate in the API's words. */
  call<T>(method: string, path: string, body?: unknown): Promise<T> {
    return apiRequest<T>(method, path, { apiKey: this.apiKey, body });
  }

  /** Records the side of an order this page submitted, then lets the events update the lists. */
  noteOrder(order: Order): void {
    this.sides.set(order.id, order.side);
    if (order.status === 'open') this.openOrders.set(order.id, order);
    else this.openOrders.delete(order.id);
    this.emit();
  }

  private authenticateSocket(): void {
    if (this.apiKey === null) return;
    if (this.socket.send({ op: 'authenticate', api_key: this.apiKey })) this.socketAuth = 'pending';
  }

  private scheduleRefresh(): void {
    if (this.refreshSoon !== null) return;
    this.refreshSoon = window.setTimeout(() => {
      this.refreshSoon = null;
      void this.refreshSlow();
    }, 300);
  }

  private async refreshSlow(): Promise<void> {
    const apiKey = this.apiKey;
    if (apiKey === null) return;
    try {
      const [portfolio, leaderboard] = await Promise.all([apiRequest<Portfolio>('GET', '/api/v1/portfolio', { apiKey }), apiRequest<LeaderboardRow[]>('GET', '/api/v1/leaderboard', { apiKey })]);
      this.positions = portfolio.positions;
      this.positionLimit = portfolio.position_limit;
      this.positionLimits = portfolio.position_limits;
      this.leaderboard = leaderboard;
      this.error = null;
    } catch (err) {
      this.error = describeError(err);
    }
    this.emit();
  }

  private emit(): void {
    for (const l of this.listeners) l();
  }
}
