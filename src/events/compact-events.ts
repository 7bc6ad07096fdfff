// Events kept flat. An in-memory log holds every event since the start; kept as objects, each one is a
// small graph (event, data, order, fills) that survives into the old generation, where the garbage
// collector traces it again on every major collection: at a million commands a second that tracing was
// a fifth of the engine's time. So the three events of trading (a submission, a cancel, an amend), which
// are nearly all of a log, are stored as columns instead: numbers in typed arrays, strings as references
// (the same strings the state holds anyway), and the event's time as a number (time-code.ts), so that
// the command's time string does not live as long as the log. Every other event, and a submission whose self-trade
// prevention canceled own orders, is kept as the object it was. Reading builds each event again, member
// for member in the order decide built it, so a reader cannot tell the difference.
import { column, grown } from './grown.ts';
import { SlotColumn } from './slot-column.ts';
import { StringColumn } from './string-column.ts';
import { timeCode, timeText } from './time-code.ts';
import { SCHEMA_VERSION, type EventOf, type ExchangeEvent, type FillFact, type OrderStatus, type OrderType, type SelfTradePrevention, type Side, type TimeInForce } from './types.ts';

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

export class CompactEvents {
  private count = 0;
  private capacity = 0;
  private kinds = column(Uint8Array);
  private flags = column(Uint16Array);
  /** Per event: 3 numbers (submitted: price or NaN, quantity, remaining; canceled: price, remaining; amended: price, previous, remaining). */
  private numbers = column(Float64Array);
  /** Per event: where its fills start in the fill columns (fill count in `fillCounts`). */
  private fillStarts = column(Int32Array);
  private fillCounts = column(Int32Array);
  /** Per event: its time's code (time-code.ts), doubles on the heap; NaN when kept as text in oddTimes. */
  private readonly times = new SlotColumn(1);
  private readonly oddTimes = new Map<number, string>();
  /** Per event: 4 strings (order id, trader id, market, client order id or null). */
  private readonly strings = new StringColumn<string | null>(null);
  private readonly objects = new Map<number, ExchangeEvent>();
  private fillCount = 0;
  private fillCapacity = 0;
  private fillNumbers = column(Float64Array); // per fill: price, quantity, maker remaining
  private readonly fillStrings = new StringColumn<string>(''); // per fill: fill id, maker order id, maker trader id

  get length(): number {
    return this.count;
  }

  push(event: ExchangeEvent): void {
    const i = this.count;
    if (i === this.capacity) this.grow();
    // Only events of the current schema have the shape the columns encode; a log may also hold events
    // as recorded by older versions (tests and audits append them), which are kept as they came.
    if (event.v !== SCHEMA_VERSION) return this.keep(i, event);
    const v = 1;
    const n = i * 3;
    switch (event.type) {
      case 'OrderSubmitted': {
        const d = event.data;
        if (d.self_trade_canceled.length > 0) return this.keep(i, event);
        const o = d.order;
        this.kinds[i] = SUBMITTED;
        this.flags[i] = v | sideCode(o.side) | (o.type === 'LIMIT' ? 0 : 4) | tifCode(o.time_in_force) | stpCode(o.self_trade_prevention) | statusCode(d.status);
        this.numbers[n] = o.price ?? Number.NaN;
        this.numbers[n + 1] = o.quantity;
        this.numbers[n + 2] = d.remaining;
        this.setStrings(i, o.id, o.trader_id, o.market, o.client_order_id);
        this.fillStarts[i] = this.fillCount;
        this.fillCounts[i] = d.fills.length;
        for (const f of d.fills) this.pushFill(f);
        break;
      }
      case 'OrderCanceled': {
        const d = event.data;
        this.kinds[i] = CANCELED;
        this.flags[i] = v | sideCode(d.side);
        this.numbers[n] = d.price;
        this.numbers[n + 1] = d.remaining;
        this.setStrings(i, d.order_id, d.trader_id, d.market, null);
        break;
      }
      case 'OrderAmended': {
        const d = event.data;
        this.kinds[i] = AMENDED;
        this.flags[i] = v | sideCode(d.side);
        this.numbers[n] = d.price;
        this.numbers[n + 1] = d.previous_remaining;
        this.numbers[n + 2] = d.remaining;
        this.setStrings(i, d.order_id, d.trader_id, d.market, null);
        break;
      }
      default:
        return this.keep(i, event);
    }
    const time = timeCode(event.time);
    // Chunk by chunk (slot-column.ts), not doubled with the typed columns: no large copy at once.
    if (i >= this.times.capacity) this.times.reserve(i + 1);
    this.times.set(i, 0, time);
    if (Number.isNaN(time)) this.oddTimes.set(i, event.time);
    this.count++;
  }

  /** The event at index i (seq i + 1), built again. */
  at(i: number): ExchangeEvent {
    if (i < 0 || i >= this.count) throw new RangeError(`compact events: no event at ${i}`);
    const kind = this.kinds[i] as number;
    if (kind === OBJECT) return this.objects.get(i) as ExchangeEvent;
    const flags = this.flags[i] as number;
    const n = i * 3;
    const s = i * 4;
    const seq = i + 1;
    const code = this.times.get(i, 0);
    const time = Number.isNaN(code) ? (this.oddTimes.get(i) as string) : timeText(code);
    const side = SIDES[(flags >> 1) & 1] as Side;
    const nums = this.numbers;
    const strs = this.strings;
    let type: 'OrderSubmitted' | 'OrderCanceled' | 'OrderAmended';
    let data: EventOf<'OrderSubmitted' | 'OrderCanceled' | 'OrderAmended'>['data'];
    if (kind === SUBMITTED) {
      const price = nums[n] as number;
      const count = this.fillCounts[i] as number;
      const fills: FillFact[] = [];
      if (count > 0) {
        const start = this.fillStarts[i] as number;
        for (let f = start; f < start + count; f++) {
          const fs = f * 3;
          fills.push({
            fill_id: this.fillStrings.get(fs),
            maker_order_id: this.fillStrings.get(fs + 1),
            maker_trader_id: this.fillStrings.get(fs + 2),
            price: this.fillNumbers[fs] as number,
            quantity: this.fillNumbers[fs + 1] as number,
            maker_remaining: this.fillNumbers[fs + 2] as number,
          });
        }
      }
      type = 'OrderSubmitted';
      data = {
        order: {
          id: (strs.get(s) as string),
          trader_id: (strs.get(s + 1) as string),
          market: (strs.get(s + 2) as string),
          side,
          price: Number.isNaN(price) ? null : price,
          quantity: nums[n + 1] as number,
          type: TYPES[(flags >> 2) & 1] as OrderType,
          time_in_force: TIFS[(flags >> 3) & 3] as TimeInForce,
          self_trade_prevention: STPS[(flags >> 5) & 3] as SelfTradePrevention,
          client_order_id: strs.get(s + 3),
        },
        fills,
        self_trade_canceled: [],
        remaining: nums[n + 2] as number,
        status: STATUSES[(flags >> 7) & 3] as OrderStatus,
      };
    } else if (kind === CANCELED) {
      type = 'OrderCanceled';
      data = { order_id: (strs.get(s) as string), trader_id: (strs.get(s + 1) as string), market: (strs.get(s + 2) as string), side, price: nums[n] as number, remaining: nums[n + 1] as number };
    } else {
      type = 'OrderAmended';
      data = { order_id: (strs.get(s) as string), trader_id: (strs.get(s + 1) as string), market: (strs.get(s + 2) as string), side, price: nums[n] as number, previous_remaining: nums[n + 1] as number, remaining: nums[n + 2] as number };
    }
    // Members in the order Exchange.execute writes them; `v` only when the event carried it.
    return ((flags & 1) === 1 ? { seq, time, type, data, v: 2 } : { seq, time, type, data }) as ExchangeEvent;
  }

  private keep(i: number, event: ExchangeEvent): void {
    this.kinds[i] = OBJECT;
    this.objects.set(i, event);
    this.count++;
  }

  private setStrings(i: number, a: string, b: string, c: string, d: string | null): void {
    const s = i * 4;
    this.strings.set(s, a);
    this.strings.set(s + 1, b);
    this.strings.set(s + 2, c);
    this.strings.set(s + 3, d);
  }

  private pushFill(f: FillFact): void {
    const j = this.fillCount;
    if (j === this.fillCapacity) {
      this.fillCapacity = Math.max(1024, this.fillCapacity * 2);
      this.fillNumbers = grown(this.fillNumbers, this.fillCapacity * 3);
    }
    this.fillNumbers[j * 3] = f.price;
    this.fillNumbers[j * 3 + 1] = f.quantity;
    this.fillNumbers[j * 3 + 2] = f.maker_remaining;
    this.fillStrings.set(j * 3, f.fill_id);
    this.fillStrings.set(j * 3 + 1, f.maker_order_id);
    this.fillStrings.set(j * 3 + 2, f.maker_trader_id);
    this.fillCount++;
  }

  private grow(): void {
    const n = Math.max(1024, this.capacity * 2);
    this.kinds = grown(this.kinds, n);
    this.flags = grown(this.flags, n);
    this.numbers = grown(this.numbers, n * 3);
    this.fillStarts = grown(this.fillStarts, n);
    this.fillCounts = grown(this.fillCounts, n);
    this.capacity = n;
  }

}
