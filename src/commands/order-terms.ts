// The terms of an order when a request names none: a good-till-canceled limit order without self-trade
// prevention or client order id, which is every order of the base specification.
import type { OrderType, SelfTradePrevention, TimeInForce } from '../events/types.ts';

export const GTC_LIMIT = Object.freeze({
  order_type: 'LIMIT' as OrderType,
  time_in_force: 'GTC' as TimeInForce,
  self_trade_prevention: 'NONE' as SelfTradePrevention,
  client_order_id: null as string | null,
});

/** A market order takes IOC when it names no time in force; any other order GTC. */
export function defaultTimeInForce(type: OrderType): TimeInForce {
  return type === 'MARKET' ? 'IOC' : 'GTC';
}
