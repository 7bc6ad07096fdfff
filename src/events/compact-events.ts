// Events kept flat. An in-memory log holds every event since the start; kept as objects, each one is a
// small graph (event, data, order, fills) that survives into the old generation, where the garbage
// collector traces it again on every major collection: at a million commands a second that tracing was
// a fifth of the engine's time. So the three events of trading (a submission, a cancel, an amend), which
// are nearly all of a log, are stored as columns instead. Every other event, and a submission whose
// self-trade prevention canceled own orders, is kept as the object it was: the very object execute
// returned to its caller and published (events are read-only by type; freezing them deeply cost ~80 µs
// for a cancel-all of 200 orders, measured, so it is not done). Reading builds each event again, member
// for member in the order decide builds it, so a reader of the exchange's own events cannot tell the
// difference; an event built elsewhere with its members in another order (a test's, an audit's) reads
// back with the same members and values in decide's order: the same canonical JSON, which is what the
// export and the hash chain use.
//
// An event is six doubles in a slot column on the V8 heap (slot-column.ts): its kind and flags with its
// trader and market as interned numbers, packed into one; its three numbers; where its fills are; its
// time as a time code (time-code.ts), so that the command's time string does not live as long as the
// log. Its order id and client order id are references (the order id is the string the state holds
// anyway). Not typed arrays: their memory is outside the heap, and V8 collects the whole heap each time
// that has grown by 64 MiB, which the log's columns (35 B an event) did every ~1.9 million events, a
// pause of hundreds of milliseconds at a large heap, in the middle of trading.
import { Interner } from './interner.ts';
import { SlotColumn } from './slot-column.ts';
import { StringColumn } from './string-column.ts';
import { OddTimes } from './time-code.ts';
import { MAX_FEE_E4, SCHEMA_VERSION, type EventOf, type ExchangeEvent, type FillFact, type OrderStatus, type OrderType, type SelfTradePrevention, type Side, type TimeInForce } from './types.ts';

const OBJECT = 0;
const SUBMITTED = 1;
const CANCELED = 2;
const AMENDED = 3;

const SIDES: readonly Side[] = ['BUY', 'SELL'];
const TYPES: readonly OrderType[] = ['LIMIT', 'MARKET'];
const TIFS: readonly TimeInForce[] = ['GTC', 'IOC', 'FOK', 'POST_ONLY'];
const STPS: readonly SelfTradePrevention[] = ['NONE', 'CANCEL_TAKER', 'CANCEL_MAKER', 'CANCEL_BOTH'];
const STATUSES: readonly OrderStatus[] = ['open', 'filled', 'canceled', 'expired'];

// flags: bit 0 `v` present (always, today: only current-schema events are encoded); bit 1 side; bit 2 type; bits 3-4 time in force; bits 5-6 STP; bits 7-8 status.
function sideCode(side: Side): number {
  return side === 'BUY' ? 0 : 2;
}
function tifCode(tif: TimeInForce): number {
  return tif === 'GTC' ? 0 : tif === 'IOC' ? 8 : tif === 'FOK' ? 16 : 24;
}
function stpCode(stp: SelfTradePrevention): number {
  return stp === 'NONE' ? 0 : stp === 'CANCEL_TAKER' ? 32 : stp === 'CANCEL_MAKER' ? 64 : 96;
}
function statusCode(status: OrderStatus): number {
  return status === 'open' ? 0 : status === 'filled' ? 128 : status === 'canceled' ? 256 : 384;
}

// An event's slot: META (kind + 4 * flags + 2^11 * market + 2^21 * trader, an integer below 2^53),
// three numbers (submitted: price or NaN, quantity, remaining; canceled: price, remaining; amended:
// price, previous, remaining), FILLS (2^20 * first fill + fill count) and TIME (a time code, NaN when
// the text is kept in `times`).
const STRIDE = 6;
const META = 0;
const N = 1;
const FILLS = 4;
const TIME = 5;
const FLAGS_AT = 4;
const MARKET_AT = 2 ** 11;
const TRADER_AT = 2 ** 21;
const MARKETS = 2 ** 10;
const TRADERS = 2 ** 32;
const FILL_AT = 2 ** 20;
// String columns index by 32-bit arithmetic (i >>> SHIFT), two strings an event and a fill: past 2^31
// events or fills an event is kept whole instead (a log of that size would not fit in memory anyway).
const FILL_STARTS = 2 ** 31;
const EVENTS = 2 ** 31;
// A fill's slot: price, quantity, maker remaining, maker trader (interned).
const FILL_STRIDE = 4;
// A fill's fees (schema version 3), in a column of their own beside it that is only made once a fill
// with fees comes (a log without fees costs nothing more): each fee plus FEE_BIAS, so that the column's
// zeros mean "no fee member" (fees are below 10^15 in magnitude, fee-math.ts; FEE_BIAS is 2^52, so the
// sum stays an exact integer).
const FEE_BIAS = 2 ** 52;

/** Whether every fee of the fills fits the fee column (an event from elsewhere may hold any number). */
function feesFit(fills: readonly FillFact[]): boolean {
  for (const f of fills) {
    if (f.maker_fee_e4 !== undefined && !(Number.isSafeInteger(f.maker_fee_e4) && Math.abs(f.maker_fee_e4) <= MAX_FEE_E4)) return false;
    if (f.taker_fee_e4 !== undefined && !(Number.isSafeInteger(f.taker_fee_e4) && Math.abs(f.taker_fee_e4) <= MAX_FEE_E4)) return false;
  }
  return true;
}

export class CompactEvents {
  private count = 0;
  private readonly slots = new SlotColumn(STRIDE);
  private readonly times = new OddTimes();
  /** Per event: 2 strings (order id, client order id or null). */
  private readonly strings = new StringColumn<string | null>(null);
  private readonly objects = new Map<number, ExchangeEvent>();
  private readonly traders: Interner;
  private readonly markets: Interner;
  private fillCount = 0;
  private readonly fillSlots = new SlotColumn(FILL_STRIDE);
  private readonly fillStrings = new StringColumn<string>(''); // per fill: fill id, maker order id
  private readonly feeSlots = new SlotColumn(2); // per fill: maker fee, taker fee (each + FEE_BIAS; 0: absent)

  /**
   * `traders` and `markets` number the names the log packs: the state's own (Exchange passes them), so
   * that the log finds the names decide has just looked up in their caches of the last one, or fresh.
   * Interners only ever add names, so sharing them cannot change what the log reads back.
   */
  constructor(traders = new Interner(), markets = new Interner()) {
    this.traders = traders;
    this.markets = markets;
  }

  get length(): number {
    return this.count;
  }

  push(event: ExchangeEvent): void {
    const i = this.count;
    // Only events of the current schema have the shape the columns encode; a log may also hold events
    // as recorded by older versions (tests and audits append them), which are kept as they came.
    if (event.v !== SCHEMA_VERSION) return this.keep(i, event);
    const v = 1;
    let kind: number;
    let flags: number;
    let trader: string;
    let market: string;
    let a: number;
    let b: number;
    let c = 0;
    let orderId: string;
    let clientId: string | null = null;
    let fills: readonly FillFact[] | null = null;
    switch (event.type) {
      case 'OrderSubmitted': {
        const d = event.data;
        if (d.self_trade_canceled.length > 0 || d.fills.length >= FILL_AT || !feesFit(d.fills)) return this.keep(i, event);
        const o = d.order;
        kind = SUBMITTED;
        flags = v | sideCode(o.side) | (o.type === 'LIMIT' ? 0 : 4) | tifCode(o.time_in_force) | stpCode(o.self_trade_prevention) | statusCode(d.status);
        trader = o.trader_id;
        market = o.market;
        a = o.price ?? Number.NaN;
        b = o.quantity;
        c = d.remaining;
        orderId = o.id;
        clientId = o.client_order_id;
        fills = d.fills;
        break;
      }
      case 'OrderCanceled':
      case 'OrderAmended': {
        // The two share every member but their remaining quantities.
        const d = event.data;
        flags = v | sideCode(d.side);
        trader = d.trader_id;
        market = d.market;
        a = d.price;
        orderId = d.order_id;
        if (event.type === 'OrderCanceled') {
          kind = CANCELED;
          b = event.data.remaining;
        } else {
          kind = AMENDED;
          b = event.data.previous_remaining;
          c = event.data.remaining;
        }
        break;
      }
      default:
        return this.keep(i, event);
    }
    const m = this.markets.intern(market);
    const t = this.traders.intern(trader);
    // Past what the packing holds (more than a thousand markets, billions of traders or fills): kept whole.
    if (m >= MARKETS || t >= TRADERS || this.fillCount + (fills === null ? 0 : fills.length) > FILL_STARTS || i >= EVENTS) return this.keep(i, event);
    // Chunk by chunk (slot-column.ts): no large copy at once.
    if (i >= this.slots.capacity) this.slots.reserve(i + 1);
    const col = this.slots.chunk(i);
    const at = this.slots.offset(i);
    col[at + META] = kind + flags * FLAGS_AT + m * MARKET_AT + t * TRADER_AT;
    col[at + N] = a;
    col[at + N + 1] = b;
    col[at + N + 2] = c;
    col[at + FILLS] = fills === null ? 0 : this.fillCount * FILL_AT + fills.length;
    col[at + TIME] = this.times.code(i, event.time);
    this.strings.set(i * 2, orderId);
    this.strings.set(i * 2 + 1, clientId);
    if (fills !== null) for (const f of fills) this.pushFill(f);
    this.count++;
  }

  /** The event at index i (seq i + 1), built again. */
  at(i: number): ExchangeEvent {
    if (i < 0 || i >= this.count) throw new RangeError(`compact events: no event at ${i}`);
    const col = this.slots.chunk(i);
    const at = this.slots.offset(i);
    const meta = col[at + META] as number;
    const kind = meta % FLAGS_AT;
    if (kind === OBJECT) return this.objects.get(i) as ExchangeEvent;
    const flags = Math.floor(meta / FLAGS_AT) % (MARKET_AT / FLAGS_AT);
    const market = this.markets.nameOf(Math.floor(meta / MARKET_AT) % MARKETS);
    const trader = this.traders.nameOf(Math.floor(meta / TRADER_AT));
    const seq = i + 1;
    const time = this.times.text(i, col[at + TIME] as number);
    const side = SIDES[(flags >> 1) & 1] as Side;
    const orderId = this.strings.get(i * 2) as string;
    let type: 'OrderSubmitted' | 'OrderCanceled' | 'OrderAmended';
    let data: EventOf<'OrderSubmitted' | 'OrderCanceled' | 'OrderAmended'>['data'];
    if (kind === SUBMITTED) {
      const price = col[at + N] as number;
      const packed = col[at + FILLS] as number;
      const count = packed % FILL_AT;
      const fills: FillFact[] = [];
      for (let f = (packed - count) / FILL_AT, end = f + count; f < end; f++) {
        const fc = this.fillSlots.chunk(f);
        const fo = this.fillSlots.offset(f);
        const fill: { -readonly [K in keyof FillFact]: FillFact[K] } = {
          fill_id: this.fillStrings.get(f * 2),
          maker_order_id: this.fillStrings.get(f * 2 + 1),
          maker_trader_id: this.traders.nameOf(fc[fo + 3] as number),
          price: fc[fo] as number,
          quantity: fc[fo + 1] as number,
          maker_remaining: fc[fo + 2] as number,
        };
        if (f < this.feeSlots.capacity) {
          const maker = this.feeSlots.get(f, 0);
          const taker = this.feeSlots.get(f, 1);
          if (maker !== 0) fill.maker_fee_e4 = maker - FEE_BIAS;
          if (taker !== 0) fill.taker_fee_e4 = taker - FEE_BIAS;
        }
        fills.push(fill);
      }
      type = 'OrderSubmitted';
      data = {
        order: {
          id: orderId,
          trader_id: trader,
          market,
          side,
          price: Number.isNaN(price) ? null : price,
          quantity: col[at + N + 1] as number,
          type: TYPES[(flags >> 2) & 1] as OrderType,
          time_in_force: TIFS[(flags >> 3) & 3] as TimeInForce,
          self_trade_prevention: STPS[(flags >> 5) & 3] as SelfTradePrevention,
          client_order_id: this.strings.get(i * 2 + 1),
        },
        fills,
        self_trade_canceled: [],
        remaining: col[at + N + 2] as number,
        status: STATUSES[(flags >> 7) & 3] as OrderStatus,
      };
    } else if (kind === CANCELED) {
      type = 'OrderCanceled';
      data = { order_id: orderId, trader_id: trader, market, side, price: col[at + N] as number, remaining: col[at + N + 1] as number };
    } else {
      type = 'OrderAmended';
      data = { order_id: orderId, trader_id: trader, market, side, price: col[at + N] as number, previous_remaining: col[at + N + 1] as number, remaining: col[at + N + 2] as number };
    }
    // Members in the order Exchange.execute writes them; `v` only when the event carried it.
    return ((flags & 1) === 1 ? { seq, time, type, data, v: SCHEMA_VERSION } : { seq, time, type, data }) as ExchangeEvent;
  }

  private keep(i: number, event: ExchangeEvent): void {
    if (i >= this.slots.capacity) this.slots.reserve(i + 1);
    // Written, not assumed zero: a push that threw half-way (a name past the packing's limits, say) may
    // have left this slot's META packed.
    this.slots.set(i, META, OBJECT);
    this.objects.set(i, event);
    this.count++;
  }

  private pushFill(f: FillFact): void {
    const j = this.fillCount;
    if (j >= this.fillSlots.capacity) this.fillSlots.reserve(j + 1);
    const fc = this.fillSlots.chunk(j);
    const fo = this.fillSlots.offset(j);
    fc[fo] = f.price;
    fc[fo + 1] = f.quantity;
    fc[fo + 2] = f.maker_remaining;
    fc[fo + 3] = this.traders.intern(f.maker_trader_id);
    this.fillStrings.set(j * 2, f.fill_id);
    this.fillStrings.set(j * 2 + 1, f.maker_order_id);
    if (f.maker_fee_e4 !== undefined || f.taker_fee_e4 !== undefined) {
      if (j >= this.feeSlots.capacity) this.feeSlots.reserve(j + 1);
      this.feeSlots.set(j, 0, f.maker_fee_e4 === undefined ? 0 : f.maker_fee_e4 + FEE_BIAS);
      this.feeSlots.set(j, 1, f.taker_fee_e4 === undefined ? 0 : f.taker_fee_e4 + FEE_BIAS);
    } else if (j < this.feeSlots.capacity) {
      // A slot a half-written push may have filled: written, not assumed zero.
      this.feeSlots.set(j, 0, 0);
      this.feeSlots.set(j, 1, 0);
    }
    this.fillCount++;
  }
}
