// The terms of an order when a request names none: a good-till-canceled limit order without self-trade
// prevention or client order id, which is every order of the base specification.
import type { OrderType, SelfTradePrevention, Side, TimeInForce } from '../events/types.ts';
import type { CommandOf } from './types.ts';

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

/** A submission as REST and WebSocket parse it (src/commands/schemas.ts), before it is stamped. */
export interface SubmitRequest {
  readonly market: string;
  readonly side: Side;
  readonly price?: number | undefined;
  readonly quantity: number;
  readonly type?: OrderType | undefined;
  readonly time_in_force?: TimeInForce | undefined;
  readonly self_trade_prevention?: SelfTradePrevention | undefined;
  readonly client_order_id?: string | undefined;
}

/** The SubmitOrder command of a request, with the defaults of the fields it left out. */
export function submitCommand(r: SubmitRequest, traderId: string, stamp: { readonly time: string; uuid(): string }): CommandOf<'SubmitOrder'> {
  const type = r.type ?? 'LIMIT';
  return {
    type: 'SubmitOrder',
    time: stamp.time,
    trader_id: traderId,
    market: r.market,
    side: r.side,
    price: r.price ?? null,
    quantity: r.quantity,
    order_type: type,
    time_in_force: r.time_in_force ?? defaultTimeInForce(type),
    self_trade_prevention: r.self_trade_prevention ?? 'NONE',
    client_order_id: r.client_order_id ?? null,
    order_id: stamp.uuid(),
    fill_id_seed: stamp.uuid(),
  };
}
