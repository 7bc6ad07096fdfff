// Hand-written checks of the order bodies, for the order path: a zod parse of SubmitOrderBody costs
// about as much as the whole rest of our HTTP code per request. They accept exactly what the zod
// schemas (src/commands/schemas.ts, the source of truth and of the OpenAPI document) accept, and give
// the same output; they never refuse anything themselves: for any body they do not vouch for they return
// undefined, and the route parses it with zod, which names the problem with its usual code and text.
// test/http/fast-order-bodies.spec.ts holds them to the schemas on a large generated set of bodies.
import { CLIENT_ORDER_ID, infinityAsMax, lacksPrice, OrderType, SelfTradePrevention, Side, TimeInForce, type AmendOrderBody, type SubmitOrderBody } from './schemas.ts';

const SIDES: ReadonlySet<unknown> = new Set(Side.options);
const ORDER_TYPES: ReadonlySet<unknown> = new Set(OrderType.options);
const TIMES_IN_FORCE: ReadonlySet<unknown> = new Set(TimeInForce.options);
const STP_MODES: ReadonlySet<unknown> = new Set(SelfTradePrevention.options);

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** A JSON object (what z.object takes), not an array or null. */
function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The schemas' Num: any number but NaN, an overlong literal's ±Infinity read as ±MAX_VALUE; else NaN (not vouched for). */
function num(value: unknown): number {
  return typeof value === 'number' ? (infinityAsMax(value) as number) : Number.NaN;
}

/** SubmitOrderBody as zod parses it (keys in the schema's order, unknown keys dropped), or undefined. */
export function fastSubmitOrderBody(value: unknown): SubmitOrderBody | undefined {
  if (!isObject(value)) return undefined;
  const { market, side, price, quantity, client_order_id: clientOrderId, type, time_in_force: timeInForce, self_trade_prevention: stp } = value;
  if (typeof market !== 'string' || !SIDES.has(side)) return undefined;
  // A limit order needs its price (zod says so in its own words).
  if (lacksPrice({ price, type })) return undefined;
  const p = price === undefined ? 0 : num(price);
  const q = num(quantity);
  if (Number.isNaN(p) || Number.isNaN(q)) return undefined;
  const s = side as SubmitOrderBody['side'];
  const out: Mutable<SubmitOrderBody> = price === undefined ? { market, side: s, quantity: q } : { market, side: s, price: p, quantity: q };
  if (clientOrderId !== undefined) {
    if (typeof clientOrderId !== 'string' || !CLIENT_ORDER_ID.test(clientOrderId)) return undefined;
    out.client_order_id = clientOrderId;
  }
  if (type !== undefined) {
    if (!ORDER_TYPES.has(type)) return undefined;
    out.type = type as SubmitOrderBody['type'];
  }
  if (timeInForce !== undefined) {
    if (!TIMES_IN_FORCE.has(timeInForce)) return undefined;
    out.time_in_force = timeInForce as SubmitOrderBody['time_in_force'];
  }
  if (stp !== undefined) {
    if (!STP_MODES.has(stp)) return undefined;
    out.self_trade_prevention = stp as SubmitOrderBody['self_trade_prevention'];
  }
  return out;
}

/** AmendOrderBody as zod parses it, or undefined. */
export function fastAmendOrderBody(value: unknown): AmendOrderBody | undefined {
  if (!isObject(value)) return undefined;
  const remaining = num(value['remaining']);
  return Number.isNaN(remaining) ? undefined : { remaining };
}
