// Orders that no longer rest (filled, canceled, expired) since the last reset, kept flat: one row of
// typed-array columns per order and a map from id to row, instead of one object per order. Lookups by id
// and by client order id and duplicate answers need every order, but they are rare next to the orders
// that pass through; flat columns keep the many finished orders cheap for the garbage collector, which
// would otherwise trace an object per order on every major collection.
import type { OrderStatus, OrderType, SelfTradePrevention, Side, TimeInForce } from '../events/types.ts';
import { PLAIN_LIMIT, RestingOrder, type OrderTerms } from './order-book.ts';

const SIDES: readonly Side[] = ['BUY', 'SELL'];
const TYPES: readonly OrderType[] = ['LIMIT', 'MARKET'];
const TIFS: readonly TimeInForce[] = ['GTC', 'IOC', 'FOK', 'POST_ONLY'];
const STPS: readonly SelfTradePrevention[] = ['NONE', 'CANCEL_TAKER', 'CANCEL_MAKER', 'CANCEL_BOTH'];
const STATUSES: readonly OrderStatus[] = ['open', 'filled', 'canceled', 'expired'];
const STATUS_CODES: Readonly<Record<OrderStatus, number>> = { open: 0, filled: 1, canceled: 2, expired: 3 };

export class OrderArchive {
  private readonly rows = new Map<string, number>();
  private capacity = 0;
  private numbers = new Float64Array(0); // per row: price, quantity, remaining, filled, notional, seq
  private flags = new Uint16Array(0); // per row: side, type, time in force, STP, status (2 bits each)
  private readonly ids: string[] = [];
  private readonly traders: string[] = [];
  private readonly markets: string[] = [];
  private readonly created: string[] = [];
  private readonly clientIds: (string | null)[] = [];

  get count(): number {
    return this.ids.length;
  }

  has(id: string): boolean {
    return this.rows.has(id);
  }

  add(o: RestingOrder): void {
    const row = this.ids.length;
    if (row === this.capacity) this.grow();
    const n = row * 6;
    const f = this.numbers;
    f[n] = o.price;
    f[n + 1] = o.quantity;
    f[n + 2] = o.remaining;
    f[n + 3] = o.filled;
    f[n + 4] = o.notional;
    f[n + 5] = o.seq;
    const t = o.terms;
    this.flags[row] = t === PLAIN_LIMIT ? (o.side === 'BUY' ? 0 : 1) | (STATUS_CODES[o.status] << 8) : SIDES.indexOf(o.side) | (TYPES.indexOf(t.type) << 2) | (TIFS.indexOf(t.time_in_force) << 4) | (STPS.indexOf(t.self_trade_prevention) << 6) | (STATUS_CODES[o.status] << 8);
    this.ids.push(o.id);
    this.traders.push(o.trader_id);
    this.markets.push(o.market);
    this.created.push(o.created_at);
    this.clientIds.push(t.client_order_id);
    this.rows.set(o.id, row);
  }

  /** The order as a detached record (changing it changes nothing here). */
  get(id: string): RestingOrder | undefined {
    const row = this.rows.get(id);
    return row === undefined ? undefined : this.at(row);
  }

  *all(): IterableIterator<RestingOrder> {
    for (let row = 0; row < this.ids.length; row++) yield this.at(row);
  }

  clear(): void {
    this.rows.clear();
    for (const list of [this.ids, this.traders, this.markets, this.created, this.clientIds]) list.length = 0;
  }

  private at(row: number): RestingOrder {
    const n = row * 6;
    const f = this.numbers;
    const flags = this.flags[row] as number;
    const cid = this.clientIds[row] as string | null;
    const type = TYPES[(flags >> 2) & 3] as OrderType;
    const tif = TIFS[(flags >> 4) & 3] as TimeInForce;
    const stp = STPS[(flags >> 6) & 3] as SelfTradePrevention;
    const terms: OrderTerms = type === 'LIMIT' && tif === 'GTC' && stp === 'NONE' && cid === null ? PLAIN_LIMIT : { type, time_in_force: tif, self_trade_prevention: stp, client_order_id: cid };
    const o = new RestingOrder(this.ids[row] as string, this.traders[row] as string, this.markets[row] as string, SIDES[flags & 3] as Side, f[n] as number, f[n + 1] as number, f[n + 2] as number, this.created[row] as string, terms, f[n + 5] as number);
    o.filled = f[n + 3] as number;
    o.notional = f[n + 4] as number;
    o.status = STATUSES[(flags >> 8) & 3] as OrderStatus;
    return o;
  }

  private grow(): void {
    const capacity = Math.max(1024, this.capacity * 2);
    const numbers = new Float64Array(capacity * 6);
    numbers.set(this.numbers);
    const flags = new Uint16Array(capacity);
    flags.set(this.flags);
    this.numbers = numbers;
    this.flags = flags;
    this.capacity = capacity;
  }
}
