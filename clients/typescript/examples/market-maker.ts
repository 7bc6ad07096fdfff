// A starter market maker on the SDK: quotes one bid and one ask around the mid of the local L3 book,
// skewed against its inventory (long: both quotes move down, so it sells more readily), requotes when
// the mid moves or a quote fills, and cancels everything on exit (Ctrl-C).
//   EXCHANGE_API_KEY=exch_... node clients/typescript/examples/market-maker.ts
// Settings (environment): EXCHANGE_URL (http://127.0.0.1:8080), MARKET (SOL-USD), SPREAD_TICKS (2),
// SIZE (5), SKEW_TICKS_PER_UNIT (0.1), MAX_POSITION (200), FALLBACK_MID (when the book is empty).
import { ExchangeError, ExchangeSocket, RestClient, type L3Book } from '../src/index.ts';

const env = process.env;
const BASE = env['EXCHANGE_URL'] ?? 'http://127.0.0.1:8080';
const API_KEY = env['EXCHANGE_API_KEY'];
const MARKET = env['MARKET'] ?? 'SOL-USD';
const SPREAD_TICKS = Number(env['SPREAD_TICKS'] ?? 2);
const SIZE = Number(env['SIZE'] ?? 5);
const SKEW = Number(env['SKEW_TICKS_PER_UNIT'] ?? 0.1);
const MAX_POSITION = Number(env['MAX_POSITION'] ?? 200);
if (API_KEY === undefined) {
  console.error('set EXCHANGE_API_KEY (npm run demo prints one for the trader "you")');
  process.exit(2);
}

const rest = new RestClient({ baseUrl: BASE, apiKey: API_KEY });
const market = (await rest.markets()).find((m) => m.market_id === MARKET);
if (market === undefined) throw new Error(`no market ${MARKET}`);
const tick = market.tick_size;
const socket = new ExchangeSocket({ url: `${BASE.replace(/^http/, 'ws')}/ws`, apiKey: API_KEY, markets: [MARKET] });

let position = (await rest.positions()).find((p) => p.market === MARKET)?.net_quantity ?? 0;
const quotes: { BUY: string | null; SELL: string | null } = { BUY: null, SELL: null };
let quotedMid: number | null = null;
let busy = false;

let positionStale = false;
socket.on('fill', ({ fill }) => {
  if (fill.market !== MARKET) return;
  positionStale = true; // re-read before the next quote
  quotedMid = null;
});
socket.on('order_state', ({ order, status }) => {
  if (status !== 'open' && (order.id === quotes.BUY || order.id === quotes.SELL)) quotes[order.side] = null;
});
socket.on('admin_message', ({ message }) => console.log(`[${message.level}] ${message.title ?? ''} ${message.body}`));
socket.on('error', (e) => console.error(`exchange: ${e.code}: ${e.text}`));

function mid(book: L3Book): number | null {
  const bid = book.bestBid();
  const ask = book.bestAsk();
  if (bid !== null && ask !== null) return (bid + ask) / 2;
  return bid ?? ask ?? (env['FALLBACK_MID'] !== undefined ? Number(env['FALLBACK_MID']) : market?.reference_price ?? null);
}

async function requote(book: L3Book): Promise<void> {
  if (busy) return;
  const m = mid(book);
  if (m === null || (quotedMid !== null && Math.abs(m - quotedMid) < tick)) return;
  busy = true;
  try {
    if (positionStale) {
      positionStale = false;
      position = (await rest.positions()).find((p) => p.market === MARKET)?.net_quantity ?? 0;
    }
    const center = m - position * SKEW * tick; // long: shade both quotes down
    const bid = Math.floor((center - SPREAD_TICKS * tick) / tick) * tick;
    const ask = Math.ceil((center + SPREAD_TICKS * tick) / tick) * tick;
    await Promise.all((['BUY', 'SELL'] as const).map(async (side) => {
      const old = quotes[side];
      quotes[side] = null;
      if (old !== null) await socket.cancelOrder({ order_id: old }).catch(() => undefined); // may have filled
      const price = side === 'BUY' ? bid : ask;
      const room = side === 'BUY' ? MAX_POSITION - position : MAX_POSITION + position;
      const quantity = Math.min(SIZE, room);
      if (quantity < 1 || price < tick) return;
      const ack = await socket.submitOrder({ market: MARKET, side, price, quantity, time_in_force: 'POST_ONLY' });
      if (ack.resting) quotes[side] = ack.order.id;
    }));
    quotedMid = m;
    console.log(`mid ${m} position ${position} quotes ${bid} / ${ask}`);
  } catch (err) {
    if (!(err instanceof ExchangeError)) throw err;
    console.error(`requote: ${err.code}: ${err.text}`);
    quotedMid = null;
  } finally {
    busy = false;
  }
}

socket.on('book', (book) => void requote(book));
await socket.connect();
setInterval(() => {
  const book = socket.book(MARKET);
  if (book?.synced === true) void requote(book);
}, 1000);
console.log(`quoting ${MARKET} around the mid (Ctrl-C cancels and exits)`);

async function shutdown(): Promise<void> {
  try {
    const { canceled } = await socket.cancelAll(MARKET);
    console.log(`canceled ${canceled.length} orders`);
  } catch {
    await rest.cancelAll(MARKET); // the socket may be down: REST cancels too
  }
  await socket.close();
  process.exit(0);
}
process.once('SIGINT', () => void shutdown());
process.once('SIGTERM', () => void shutdown());
