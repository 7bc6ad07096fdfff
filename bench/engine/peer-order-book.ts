// The peer of bench:engine: nodejs-order-book (npm, 10.1.1), "Node.js Limit Order Book for
// high-frequency trading", given exactly the commands bench:engine gives the exchange (the same books
// before the run, the same warm-up, the same timed mix: bench/engine/workload.ts) and timed the same
// way, command by command. One book per market; a cancel or amend goes to the book of the order it
// names (resolved before the timed loop, as the exchange's commands are pre-built too). It matches by
// price-time priority and keeps its orders, nothing else: no risk check, log, positions, fills or feeds,
// which the exchange does on every command. Run in a process of its own by bench/engine.bench.ts,
// which prints the exchange's rate against this one's.
//
//   node bench/engine/peer-order-book.ts SIZE [COMMANDS]
import { OrderBook, Side } from 'nodejs-order-book';
import type { Command } from '../../src/commands/types.ts';
import { MARKETS, prefill, provisioning, session, workload } from './workload.ts';

type Op =
  | { readonly kind: 0; readonly book: OrderBook; readonly order: { id: string; side: Side; size: number; price: number } }
  | { readonly kind: 1; readonly book: OrderBook; readonly id: string }
  | { readonly kind: 2; readonly book: OrderBook; readonly id: string; readonly update: { size: number } };

const books = Array.from({ length: MARKETS }, () => new OrderBook());
/** Which book each order id went to, for the cancels and amends that name it. */
const bookOf = new Map<string, OrderBook>();

function ops(commands: Iterable<Command>): Op[] {
  const out: Op[] = [];
  for (const c of commands) {
    if (c.type === 'SubmitOrder') {
      if (c.price === null || c.order_type !== 'LIMIT' || c.time_in_force !== 'GTC') throw new Error('peer: only the base mix (GTC limit orders)');
      const book = books[Number(c.market.slice(1, c.market.indexOf('-')))] as OrderBook;
      bookOf.set(c.order_id, book);
      out.push({ kind: 0, book, order: { id: c.order_id, side: c.side === 'BUY' ? Side.BUY : Side.SELL, size: c.quantity, price: c.price } });
    } else if (c.type === 'CancelOrder' || c.type === 'AmendOrder') {
      const book = bookOf.get(c.order_id as string);
      if (book === undefined) throw new Error(`peer: ${c.type} of an unknown order`);
      out.push(c.type === 'CancelOrder' ? { kind: 1, book, id: c.order_id as string } : { kind: 2, book, id: c.order_id as string, update: { size: c.remaining } });
    }
  }
  return out;
}

function run(list: readonly Op[]): { perSecond: number; p50: number; p99: number } {
  const lat = new Float64Array(list.length);
  const start = process.hrtime.bigint();
  let prev = start;
  for (let i = 0; i < list.length; i++) {
    const op = list[i] as Op;
    if (op.kind === 0) op.book.limit(op.order);
    else if (op.kind === 1) op.book.cancel(op.id);
    else op.book.modify(op.id, op.update);
    const now = process.hrtime.bigint();
    lat[i] = Number(now - prev);
    prev = now;
  }
  const seconds = Number(prev - start) / 1e9;
  lat.sort();
  return { perSecond: list.length / seconds, p50: (lat[Math.floor(0.5 * lat.length)] as number) / 1000, p99: (lat[Math.floor(0.99 * lat.length)] as number) / 1000 };
}

const size = Number(process.argv[2]);
const count = Number(process.argv[3] ?? 300_000);
if (!(size > 0 && count > 0)) throw new Error('usage: node bench/engine/peer-order-book.ts SIZE [COMMANDS]');
// The same sequence of generator calls as bench:engine's base mix, so ids, prices and times are the same.
const s = session(size);
provisioning(s);
run(ops(prefill(s, size)));
run(ops(workload(s, Math.min(50_000, count), 99)));
const timed = ops(workload(s, count, size));
const gc = (globalThis as { gc?: () => void }).gc;
gc?.();
const r = run(timed);
console.log(`nodejs-order-book 10.1.1: ${Math.round(r.perSecond).toLocaleString('en-US')} commands/s p50 ${r.p50.toFixed(2)} µs p99 ${r.p99.toFixed(2)} µs`);
