// The trader routes of the specification: x-api-key, and all of them rate limited per trader.
import { z } from 'zod';
import { AmendOrderBody, SubmitOrderBody } from '../../commands/schemas.ts';
import { POSITION_LIMIT } from '../../commands/rules.ts';
import { orderView } from '../../projections/books.ts';
import type { OrderView } from '../../projections/views.ts';
import { changedOrderReply, submitReply } from '../../projections/order-replies.ts';
import type { Command } from '../../commands/types.ts';
import type { Stamp } from '../clock.ts';
import type { ServerContext } from '../context.ts';
import type { ServerResponse } from 'node:http';
import { LeaderboardQuery, MarketFilterQuery, OrderIdParams } from './http-inputs.ts';
import {
  FillSchema,
  LeaderboardRowSchema,
  OrderResponse,
  OrderSchema,
  PortfolioSchema,
  PositionSchema,
  SubmitOrderResponse,
  TraderProfileSchema,
} from './response-schemas.ts';
import { callerOf, defineRoute, type AnyRoute, type Replied } from './route.ts';
import { eventOf, runCommand } from './run-command.ts';

const TAG = 'Trader';

/**
 * Amend or cancel: the reply is the order as it rested when the command was admitted (quantity and
 * created_at never change), with the remaining the event records.
 */
function changeOrder(context: ServerContext, res: ServerResponse, orderId: string, build: (s: Stamp) => Command): Promise<Replied> {
  let before: OrderView | null = null;
  return runCommand(
    context,
    res,
    200,
    (s) => {
      const resting = context.service.state.books.order(orderId);
      before = resting === undefined ? null : orderView(resting);
      return build(s);
    },
    (event) => {
      if (before === null || (event.type !== 'OrderAmended' && event.type !== 'OrderCanceled')) throw new Error(`unexpected ${event.type} for an order change`);
      return { order: changedOrderReply(before, event) };
    },
  );
}

export const traderRoutes: readonly AnyRoute[] = [
  defineRoute({
    method: 'get',
    path: '/api/v1/user',
    access: 'trader',
    rateLimited: true,
    tag: TAG,
    summary: 'The caller\'s profile, with the API key it presented',
    success: { status: 200, description: 'TraderProfile', schema: TraderProfileSchema },
    errors: [],
    handle: (call) => {
      const t = callerOf(call);
      return { trader_id: t.trader_id, username: t.username, api_key: call.apiKey, created_at: t.created_at };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/positions',
    access: 'trader',
    rateLimited: true,
    tag: TAG,
    summary: 'All positions of the caller, by market',
    success: { status: 200, description: 'array of Position', schema: z.array(PositionSchema) },
    errors: [],
    handle: (call) => call.context.service.state.positions.viewsOf(callerOf(call).trader_id),
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/portfolio',
    access: 'trader',
    rateLimited: true,
    tag: TAG,
    summary: 'The caller\'s positions and the position limit',
    success: { status: 200, description: 'trader_id, position_limit (always 1000) and positions', schema: PortfolioSchema },
    errors: [],
    handle: (call) => {
      const traderId = callerOf(call).trader_id;
      return { trader_id: traderId, position_limit: POSITION_LIMIT, positions: call.context.service.state.positions.viewsOf(traderId) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/leaderboard',
    access: 'trader',
    rateLimited: true,
    tag: TAG,
    summary: 'Traders ranked by marked net PnL',
    description: 'Ranked by net_pnl descending, then username, then trader_id. Computed once per change of state.',
    query: LeaderboardQuery,
    success: { status: 200, description: 'array of LeaderboardRow', schema: z.array(LeaderboardRowSchema) },
    errors: ['invalid_query'],
    handle: (call) => {
      const state = call.context.service.state;
      const rows = state.leaderboard.at(state.seq);
      return call.query.limit === undefined ? rows : rows.slice(0, call.query.limit);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/open-orders',
    access: 'trader',
    rateLimited: true,
    tag: TAG,
    summary: 'The caller\'s resting orders',
    description: 'Oldest first (created_at, then id).',
    query: MarketFilterQuery,
    success: { status: 200, description: 'array of Order', schema: z.array(OrderSchema) },
    errors: ['invalid_market'],
    handle: (call) => call.context.service.state.books.openOrders(callerOf(call).trader_id, call.query.market),
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/fills',
    access: 'trader',
    rateLimited: true,
    tag: TAG,
    summary: 'The caller\'s fills, as maker or taker',
    description: 'By occurred_at, then fill_id.',
    query: MarketFilterQuery,
    success: { status: 200, description: 'array of Fill', schema: z.array(FillSchema) },
    errors: ['invalid_market'],
    handle: (call) => call.context.service.state.fills.of(callerOf(call).trader_id, call.query.market),
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/orders',
    access: 'trader',
    rateLimited: true,
    tag: TAG,
    summary: 'Submit a limit order',
    description:
      'Admission checks in this order, the first failing one answers: trading enabled; market symbol, configured, not disabled, not settled; ' +
      'price > 0 and a tick multiple; quantity > 0 and >= min_order_quantity; worst-case net position (current net + resting orders of the ' +
      'same side + this order) within +/-1000. Then matching at price-time priority, every execution at the maker\'s price.',
    body: SubmitOrderBody,
    success: { status: 201, description: 'the order after matching, the fills it made, and whether a remainder rests', schema: SubmitOrderResponse },
    errors: [
      'trading_disabled',
      'invalid_market',
      'market_not_configured',
      'market_disabled',
      'market_settled',
      'invalid_price',
      'tick_size_violation',
      'invalid_quantity',
      'quantity_below_minimum',
      'position_limit_exceeded',
      'overflow',
    ],
    handle: (call) => {
      const traderId = callerOf(call).trader_id;
      const b = call.body;
      return runCommand(
        call.context,
        call.res,
        201,
        (s) => ({ type: 'SubmitOrder', time: s.time, trader_id: traderId, market: b.market, side: b.side, price: b.price, quantity: b.quantity, order_id: s.uuid(), fill_id_seed: s.uuid() }),
        (event) => submitReply(eventOf(event, 'OrderSubmitted')),
      );
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/api/v1/orders/{order_id}',
    access: 'trader',
    rateLimited: true,
    tag: TAG,
    summary: 'Reduce the remaining quantity of a resting order',
    description: 'remaining must be > 0 and <= the current remaining (equal changes nothing); the order keeps its place in the queue.',
    params: OrderIdParams,
    body: AmendOrderBody,
    success: { status: 200, description: 'the order with its new remaining', schema: OrderResponse },
    errors: ['invalid_remaining', 'invalid_amend', 'order_not_found', 'order_not_owned'],
    handle: (call) => {
      const traderId = callerOf(call).trader_id;
      return changeOrder(call.context, call.res, call.params.order_id, (s) => ({ type: 'AmendOrder', time: s.time, trader_id: traderId, order_id: call.params.order_id, remaining: call.body.remaining }));
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/api/v1/orders/{order_id}',
    access: 'trader',
    rateLimited: true,
    tag: TAG,
    summary: 'Cancel a resting order',
    description: 'Allowed while trading is stopped or the market disabled. The answer shows the order as it was when cancelled (remaining = the cancelled quantity).',
    params: OrderIdParams,
    success: { status: 200, description: 'the cancelled order', schema: OrderResponse },
    errors: ['order_not_found', 'order_not_owned'],
    handle: (call) => {
      const traderId = callerOf(call).trader_id;
      return changeOrder(call.context, call.res, call.params.order_id, (s) => ({ type: 'CancelOrder', time: s.time, trader_id: traderId, order_id: call.params.order_id }));
    },
  }),
];
