// The history tables' rows (migration 007), both ways: COPY text as the batch writer and the backfill
// write them, and the records the readers build from query rows. What one event adds to the history:
// a fill row per execution (read from the event itself), a row per order it finished and per candle
// minute it closed (told by the state as it applied the event: books.finished$, candleMinutes.closed$).
import type { EventOf, OrderStatus, OrderType, SelfTradePrevention, Side, TimeInForce } from '../../events/types.ts';
import type { FinishedOrder } from '../../projections/books.ts';
import type { MinuteCandle } from '../../projections/candles.ts';
import type { TapeTrade } from '../../projections/history/trade-tape.ts';
import { sideFee } from '../../projections/fills.ts';
import { feeValue } from '../../projections/fee-math.ts';
import type { FillView } from '../../projections/views.ts';
import { copyEscape } from '../persistence/postgres/copy-text.ts';

export const FILL_COLUMNS = 'seq, n, fill_id, market, price, quantity, taker_side, taker_order_id, taker_trader_id, maker_order_id, maker_trader_id, occurred_at, maker_fee_e4, taker_fee_e4';
export const ORDER_COLUMNS =
  'id, trader_id, market, side, price, quantity, remaining, status, filled, notional, order_type, time_in_force, self_trade_prevention, client_order_id, created_at, seq, finished_seq, finished_at';
export const MINUTE_COLUMNS = 'market, start_us, open, high, low, close, volume, trades, first_seq, last_seq, closed_seq';

/** The history tables, in the order a batch writes them. */
export const HISTORY_TABLES = [
  { table: 'fill_history', columns: FILL_COLUMNS },
  { table: 'order_history', columns: ORDER_COLUMNS },
  { table: 'candle_minutes', columns: MINUTE_COLUMNS },
] as const;

/** An execution with both sides: a row of fill_history. */
export interface ExecutionRecord {
  readonly seq: number;
  readonly n: number;
  readonly fill_id: string;
  readonly market: string;
  readonly price: number;
  readonly quantity: number;
  readonly taker_side: Side;
  readonly taker_order_id: string;
  readonly taker_trader_id: string;
  readonly maker_order_id: string;
  readonly maker_trader_id: string;
  readonly occurred_at: string;
  /** Each side's fee, in ten-thousandths of the quote asset (0 in a market without fees). */
  readonly maker_fee_e4: number;
  readonly taker_fee_e4: number;
}

/** The executions of a submission, in the order they were made. */
export function executionsOf(event: EventOf<'OrderSubmitted'>): ExecutionRecord[] {
  const { order, fills } = event.data;
  return fills.map((f, n) => ({
    seq: event.seq,
    n,
    fill_id: f.fill_id,
    market: order.market,
    price: f.price,
    quantity: f.quantity,
    taker_side: order.side,
    taker_order_id: order.id,
    taker_trader_id: order.trader_id,
    maker_order_id: f.maker_order_id,
    maker_trader_id: f.maker_trader_id,
    occurred_at: event.time,
    maker_fee_e4: f.maker_fee_e4 ?? 0,
    taker_fee_e4: f.taker_fee_e4 ?? 0,
  }));
}

/** An execution as the trader `viewer` (its taker or its maker) sees it: that side's fee and liquidity. */
export function fillViewOf(e: ExecutionRecord, viewer: string): FillView {
  const self = e.maker_trader_id === e.taker_trader_id;
  const maker = !self && viewer === e.maker_trader_id;
  return {
    fill_id: e.fill_id,
    market: e.market,
    maker_order_id: e.maker_order_id,
    taker_order_id: e.taker_order_id,
    price: e.price,
    quantity: e.quantity,
    occurred_at: e.occurred_at,
    fee: feeValue(sideFee(e.maker_fee_e4, e.taker_fee_e4, maker, self)),
    liquidity: maker ? 'maker' : 'taker',
  };
}

export function tapeTradeOf(e: ExecutionRecord): TapeTrade {
  return { trade_id: e.fill_id, price: e.price, quantity: e.quantity, taker_side: e.taker_side, occurred_at: e.occurred_at, seq: e.seq, n: e.n };
}

const text = (v: string): string => copyEscape(v);
const nullable = (v: string | null): string => (v === null ? '\\N' : copyEscape(v));

/** The COPY rows (fill_history) of a submission's executions. */
export function fillRows(event: EventOf<'OrderSubmitted'>): string {
  const { order, fills } = event.data;
  const head = `${event.seq}\t`;
  const tail = `\t${text(order.side)}\t${text(order.id)}\t${text(order.trader_id)}\t`;
  const time = text(event.time);
  const market = text(order.market);
  let out = '';
  for (let n = 0; n < fills.length; n++) {
    const f = fills[n] as (typeof fills)[number];
    out += `${head}${n}\t${text(f.fill_id)}\t${market}\t${f.price}\t${f.quantity}${tail}${text(f.maker_order_id)}\t${text(f.maker_trader_id)}\t${time}\t${f.maker_fee_e4 ?? 0}\t${f.taker_fee_e4 ?? 0}\n`;
  }
  return out;
}

/** The COPY row (order_history) of a finished order. */
export function orderRow(o: FinishedOrder): string {
  const t = o.terms;
  return `${text(o.id)}\t${text(o.trader_id)}\t${text(o.market)}\t${o.side}\t${o.price}\t${o.quantity}\t${o.remaining}\t${o.status}\t${o.filled}\t${o.notional}\t${t.type}\t${t.time_in_force}\t${t.self_trade_prevention}\t${nullable(t.client_order_id)}\t${text(o.created_at)}\t${o.seq}\t${o.finished_seq}\t${text(o.finished_at)}\n`;
}

/** The COPY row (candle_minutes) of a minute closed by the event of seq `closedSeq`. */
export function minuteRow(m: MinuteCandle, closedSeq: number): string {
  return `${text(m.market)}\t${m.start}\t${m.open}\t${m.high}\t${m.low}\t${m.close}\t${m.volume}\t${m.trades}\t${m.first_seq}\t${m.last_seq}\t${closedSeq}\n`;
}

/** A query row of fill_history (bigint columns arrive as strings). */
export interface FillRow {
  readonly seq: string;
  readonly n: number;
  readonly fill_id: string;
  readonly market: string;
  readonly price: string;
  readonly quantity: string;
  readonly taker_side: string;
  readonly taker_order_id: string;
  readonly taker_trader_id: string;
  readonly maker_order_id: string;
  readonly maker_trader_id: string;
  readonly occurred_at: string;
  readonly maker_fee_e4: string;
  readonly taker_fee_e4: string;
}

export function executionOfRow(r: FillRow): ExecutionRecord {
  return {
    seq: Number(r.seq),
    n: r.n,
    fill_id: r.fill_id,
    market: r.market,
    price: Number(r.price),
    quantity: Number(r.quantity),
    taker_side: r.taker_side as Side,
    taker_order_id: r.taker_order_id,
    taker_trader_id: r.taker_trader_id,
    maker_order_id: r.maker_order_id,
    maker_trader_id: r.maker_trader_id,
    occurred_at: r.occurred_at,
    maker_fee_e4: Number(r.maker_fee_e4),
    taker_fee_e4: Number(r.taker_fee_e4),
  };
}

/** A row of fill_history as COPY writes it: its fields in FILL_COLUMNS' order, unescaped. */
export function executionOfCopyRow(fields: readonly string[]): ExecutionRecord {
  const [seq, n, fill_id, market, price, quantity, taker_side, taker_order_id, taker_trader_id, maker_order_id, maker_trader_id, occurred_at, maker_fee_e4, taker_fee_e4] = fields as [string, string, string, string, string, string, string, string, string, string, string, string, string, string];
  return executionOfRow({ seq, n: Number(n), fill_id, market, price, quantity, taker_side, taker_order_id, taker_trader_id, maker_order_id, maker_trader_id, occurred_at, maker_fee_e4, taker_fee_e4 });
}

/** A query row of order_history. */
export interface OrderRow {
  readonly id: string;
  readonly trader_id: string;
  readonly market: string;
  readonly side: string;
  readonly price: string;
  readonly quantity: string;
  readonly remaining: string;
  readonly status: string;
  readonly filled: string;
  readonly notional: number;
  readonly order_type: string;
  readonly time_in_force: string;
  readonly self_trade_prevention: string;
  readonly client_order_id: string | null;
  readonly created_at: string;
  readonly seq: string;
  readonly finished_seq: string;
  readonly finished_at: string;
}

export function orderOfRow(r: OrderRow): FinishedOrder {
  return {
    id: r.id,
    trader_id: r.trader_id,
    market: r.market,
    side: r.side as Side,
    price: Number(r.price),
    quantity: Number(r.quantity),
    remaining: Number(r.remaining),
    created_at: r.created_at,
    terms: { type: r.order_type as OrderType, time_in_force: r.time_in_force as TimeInForce, self_trade_prevention: r.self_trade_prevention as SelfTradePrevention, client_order_id: r.client_order_id },
    seq: Number(r.seq),
    status: r.status as OrderStatus,
    filled: Number(r.filled),
    notional: Number(r.notional),
    finished_seq: Number(r.finished_seq),
    finished_at: r.finished_at,
  };
}

/** A query row of candle_minutes. */
export interface MinuteRow {
  readonly market: string;
  readonly start_us: string;
  readonly open: string;
  readonly high: string;
  readonly low: string;
  readonly close: string;
  readonly volume: number;
  readonly trades: number;
  readonly first_seq: string;
  readonly last_seq: string;
}

export function minuteOfRow(r: MinuteRow): MinuteCandle {
  return {
    market: r.market,
    start: Number(r.start_us),
    open: Number(r.open),
    high: Number(r.high),
    low: Number(r.low),
    close: Number(r.close),
    volume: Number(r.volume),
    trades: r.trades,
    first_seq: Number(r.first_seq),
    last_seq: Number(r.last_seq),
  };
}
