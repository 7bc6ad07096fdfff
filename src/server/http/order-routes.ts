// The order management of trading-extensions.md: lookups of one order in any status (by id or by client
// order id), amend and cancel by client order id, and cancel-all. Trader routes, rate limited like the
// others.
import { z } from 'zod';
import { DomainError } from '../../commands/errors.ts';
import { AmendOrderBody, ClientOrderId } from '../../commands/schemas.ts';
import type { Command } from '../../commands/types.ts';
import { isMarketSymbol } from '../../commands/rules.ts';
import { orderView } from '../../projections/books.ts';
import { cancelAllReply, orderReply } from '../../projections/order-replies.ts';
import type { Stamp } from '../clock.ts';
import { then } from '../history/history.ts';
import { findOrder, findOrderByClientId } from '../history/order-lookups.ts';
import { fastAmendOrderBody } from '../../commands/fast-order-bodies.ts';
import { OrderIdParams } from './http-inputs.ts';
import { CancelAllResponse, OrderResponse } from './response-schemas.ts';
import { callerOf, defineRoute, type AnyRoute, type Replied } from './route.ts';
import { eventOf, runCommand, type CommandCall } from './run-command.ts';

const TAG = 'Trader';

const ClientOrderIdParams = z.object({ client_order_id: ClientOrderId.meta({ description: 'the client order id the trader gave the order' }) });

const CancelAllQuery = z.object({
  market: z.string().refine(isMarketSymbol, 'expected BASE-QUOTE').optional().meta({ description: 'only orders of this market (BASE-QUOTE)', example: 'BTC-USD' }),
});

/** Amend or cancel: the answer is the order as it is right after the command (status, remaining). */
export function changeOrder(call: CommandCall, build: (s: Stamp) => Command): Replied | Promise<Replied> {
  return runCommand(call, 200, build, (event) => {
    if (event.type !== 'OrderAmended' && event.type !== 'OrderCanceled') throw new Error(`unexpected ${event.type} for an order change`);
    return { order: orderReply(call.context.service.state, event.data.order_id) };
  });
}

export const orderRoutes: readonly AnyRoute[] = [
  defineRoute({
    method: 'get',
    path: '/api/v1/orders/{order_id}',
    access: 'trader',
    scope: 'read',
    rateLimited: true,
    tag: TAG,
    summary: 'One of the caller\'s orders, in any status since the last reset',
    params: OrderIdParams,
    success: { status: 200, description: 'the order as it is now', schema: OrderResponse },
    errors: ['history_unavailable', 'order_not_found'],
    handle: (call) => {
      const id = call.params.order_id;
      // Another trader's order is not found, not forbidden: ids of other traders' orders are not confirmed.
      return then(findOrder(call.context.service.state, call.context.history, callerOf(call).trader_id, id), (o) => {
        if (o === undefined) throw new DomainError('order_not_found', `order ${id} not found`);
        return { order: orderView(o) };
      });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/orders/by-client-id/{client_order_id}',
    access: 'trader',
    scope: 'read',
    rateLimited: true,
    tag: TAG,
    summary: 'One of the caller\'s orders by its client order id, in any status since the last reset',
    params: ClientOrderIdParams,
    success: { status: 200, description: 'the order as it is now', schema: OrderResponse },
    errors: ['history_unavailable', 'order_not_found', 'invalid_client_order_id'],
    handle: (call) => {
      const cid = call.params.client_order_id;
      return then(findOrderByClientId(call.context.service.state, call.context.history, callerOf(call).trader_id, cid), (o) => {
        if (o === undefined) throw new DomainError('order_not_found', `no order with client_order_id ${cid}`);
        return { order: orderView(o) };
      });
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/api/v1/orders/by-client-id/{client_order_id}',
    access: 'trader',
    scope: 'trade',
    rateLimited: true,
    tag: TAG,
    summary: 'Reduce the remaining quantity of a resting order named by its client order id',
    description: 'As PATCH /api/v1/orders/{order_id}, except that the client order id is looked up among the caller\'s own orders only: none open is 404, never 403.',
    params: ClientOrderIdParams,
    body: AmendOrderBody,
    fastBody: fastAmendOrderBody,
    success: { status: 200, description: 'the order with its new remaining', schema: OrderResponse },
    errors: ['invalid_remaining', 'invalid_amend', 'order_not_found', 'invalid_client_order_id'],
    handle: (call) => {
      const traderId = callerOf(call).trader_id;
      return changeOrder(call, (s) => ({ type: 'AmendOrder', time: s.time, trader_id: traderId, client_order_id: call.params.client_order_id, remaining: call.body.remaining }));
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/api/v1/orders/by-client-id/{client_order_id}',
    access: 'trader',
    scope: 'trade',
    rateLimited: true,
    tag: TAG,
    summary: 'Cancel a resting order named by its client order id',
    description: 'As DELETE /api/v1/orders/{order_id}, except that the client order id is looked up among the caller\'s own orders only: none open is 404, never 403.',
    params: ClientOrderIdParams,
    success: { status: 200, description: 'the canceled order', schema: OrderResponse },
    errors: ['order_not_found', 'invalid_client_order_id'],
    handle: (call) => {
      const traderId = callerOf(call).trader_id;
      return changeOrder(call, (s) => ({ type: 'CancelOrder', time: s.time, trader_id: traderId, client_order_id: call.params.client_order_id }));
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/api/v1/orders',
    access: 'trader',
    scope: 'trade',
    rateLimited: true,
    tag: TAG,
    summary: 'Cancel every open order of the caller (optionally of one market)',
    description: 'One command and one event however many orders it cancels; nothing open is 200 with an empty list. Allowed while trading is stopped or the market disabled.',
    query: CancelAllQuery,
    success: { status: 200, description: 'every order canceled, oldest first (created_at, then id)', schema: CancelAllResponse },
    errors: ['invalid_market'],
    handle: (call) => {
      const traderId = callerOf(call).trader_id;
      return runCommand(
        call,
        200,
        (s) => ({ type: 'CancelAllOrders', time: s.time, trader_id: traderId, market: call.query.market ?? null, reason: 'request' }),
        (event) => cancelAllReply(call.context.service.state, eventOf(event, 'OrdersCanceled')),
      );
    },
  }),
];
