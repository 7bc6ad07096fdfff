// Arguments are checked before anything is sent, so a bot's bug fails at its call site with a clear
// text instead of costing a round trip and a slot of its rate budget. The rules are the exchange's
// structural ones (decide still applies market rules such as tick sizes and limits).
import { ExchangeError } from './errors.ts';
import type { OrderRef, SubmitOrderArgs } from './messages.ts';

const MAX_U53 = Number.MAX_SAFE_INTEGER;
const CLIENT_ORDER_ID = /^[A-Za-z0-9._:-]{1,64}$/;
const SIDES = ['BUY', 'SELL'];
const TYPES = ['LIMIT', 'MARKET'];
const TIFS = ['GTC', 'IOC', 'FOK', 'POST_ONLY'];
const STPS = ['NONE', 'CANCEL_TAKER', 'CANCEL_MAKER', 'CANCEL_BOTH'];
const SUBMIT_KEYS = new Set(['market', 'side', 'price', 'quantity', 'client_order_id', 'type', 'time_in_force', 'self_trade_prevention']);

function fail(text: string): never {
  throw ExchangeError.invalidArgument(text);
}

export function positiveInteger(name: string, v: unknown): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > MAX_U53) fail(`${name} must be an integer between 1 and ${MAX_U53}, got ${JSON.stringify(v)}`);
  return v;
}

export function marketSymbol(v: unknown, name = 'market'): string {
  if (typeof v !== 'string' || v.length === 0 || v.length > 128) fail(`${name} must be a non-empty string of at most 128 characters, got ${JSON.stringify(v)}`);
  return v;
}

function oneOf(name: string, v: unknown, allowed: readonly string[]): void {
  if (v !== undefined && (typeof v !== 'string' || !allowed.includes(v))) fail(`${name} must be one of ${allowed.join(', ')}, got ${JSON.stringify(v)}`);
}

export function clientOrderId(v: unknown): string {
  if (typeof v !== 'string' || !CLIENT_ORDER_ID.test(v)) fail(`client_order_id must be 1 to 64 characters of A-Z a-z 0-9 . _ : -, got ${JSON.stringify(v)}`);
  return v;
}

/** A copy of the order's fields, checked; unknown fields are refused (a typo would otherwise be dropped). */
export function checkSubmit(args: SubmitOrderArgs): SubmitOrderArgs {
  if (typeof args !== 'object' || args === null) fail('the order must be an object');
  for (const key of Object.keys(args)) if (!SUBMIT_KEYS.has(key)) fail(`unknown order field ${JSON.stringify(key)}`);
  marketSymbol(args.market);
  if (!SIDES.includes(args.side)) fail(`side must be BUY or SELL, got ${JSON.stringify(args.side)}`);
  oneOf('type', args.type, TYPES);
  oneOf('time_in_force', args.time_in_force, TIFS);
  oneOf('self_trade_prevention', args.self_trade_prevention, STPS);
  if (args.type === 'MARKET') {
    if (args.price !== undefined) fail('a MARKET order has no price');
  } else positiveInteger('price', args.price);
  positiveInteger('quantity', args.quantity);
  if (args.client_order_id !== undefined) clientOrderId(args.client_order_id);
  const out: SubmitOrderArgs = { market: args.market, side: args.side, quantity: args.quantity };
  if (args.price !== undefined) out.price = args.price;
  if (args.client_order_id !== undefined) out.client_order_id = args.client_order_id;
  if (args.type !== undefined) out.type = args.type;
  if (args.time_in_force !== undefined) out.time_in_force = args.time_in_force;
  if (args.self_trade_prevention !== undefined) out.self_trade_prevention = args.self_trade_prevention;
  return out;
}

export function checkRef(ref: OrderRef): OrderRef {
  if (typeof ref !== 'object' || ref === null) fail('name the order with { order_id } or { client_order_id }');
  const hasId = ref.order_id !== undefined;
  const hasClient = ref.client_order_id !== undefined;
  if (hasId === hasClient) fail('give exactly one of order_id and client_order_id');
  if (hasId) {
    if (typeof ref.order_id !== 'string' || ref.order_id.length === 0 || ref.order_id.length > 128) fail(`order_id must be a non-empty string, got ${JSON.stringify(ref.order_id)}`);
    return { order_id: ref.order_id };
  }
  return { client_order_id: clientOrderId(ref.client_order_id) };
}
