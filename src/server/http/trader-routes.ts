// The trader routes of the specification: x-api-key, and all of them rate limited per trader.
import { z } from 'zod';
import { sendLeaderboard } from './operator-routes.ts';
import { AmendOrderBody, SubmitOrderBody } from '../../commands/schemas.ts';
import { POSITION_LIMIT } from '../../commands/rules.ts';
import { submitCommand } from '../../commands/order-terms.ts';
import { byCreatedThenId, orderView } from '../../projections/books.ts';
import { submitReply } from '../../projections/order-replies.ts';
import { then } from '../history/history.ts';
import { checkEarlier, withEarlierOrder } from '../history/order-lookups.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';
import { streamJsonArray } from './send-json-array.ts';
import { LeaderboardQuery, MarketFilterQuery, OrderIdParams } from './http-inputs.ts';
import { changeOrder } from './order-routes.ts';
import { fastAmendOrderBody, fastSubmitOrderBody } from '../../commands/fast-order-bodies.ts';
import { PageQuery, pageLimit, wantsPage } from './paging.ts';
import { pageBackwards } from '../../projections/history/page-backwards.ts';
import {
  FillSchema,
  LeaderboardRowSchema,
  FillsPage,
  OrderResponse,
  OrderSchema,
  OrdersPage,
  PortfolioSchema,
  PositionSchema,
  SubmitOrderResponse,
  TraderProfileSchema,
} from './response-schemas.ts';
import { callerOf, defineRoute, type AnyRoute } from './route.ts';
import { eventOf, runCommand } from './run-command.ts';

const PagedMarketQuery = MarketFilterQuery.extend(PageQuery);

const TAG = 'Trader';

export const traderRoutes: readonly AnyRoute[] = [
  defineRoute({
    method: 'get',
    path: '/api/v1/user',
    access: 'trader',
    scope: 'read',
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
    scope: 'read',
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
    scope: 'read',
    rateLimited: true,
    tag: TAG,
    summary: 'The caller\'s positions and the position limits',
    success: { status: 200, description: 'trader_id, position_limit (the default, 1000), every market\'s position limit, and positions', schema: PortfolioSchema },
    errors: [],
    handle: (call) => {
      const traderId = callerOf(call).trader_id;
      const state = call.context.service.state;
      const limits: Record<string, number> = {};
      for (const m of state.markets.list()) limits[m.market_id] = m.position_limit;
      return { trader_id: traderId, position_limit: POSITION_LIMIT, position_limits: limits, positions: state.positions.viewsOf(traderId) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/leaderboard',
    access: 'trader',
    scope: 'read',
    rateLimited: true,
    tag: TAG,
    summary: 'Traders ranked by marked net PnL',
    description: 'Ranked by net_pnl descending, then username, then trader_id. Computed once per change of state.',
    query: LeaderboardQuery,
    success: { status: 200, description: 'array of LeaderboardRow', schema: z.array(LeaderboardRowSchema), alternateContentTypes: ['text/csv'] },
    errors: ['invalid_query'],
    handle: (call) => {
      const state = call.context.service.state;
      const rows = state.leaderboard.at(state.seq);
      return sendLeaderboard(call, call.query.limit === undefined ? rows : rows.slice(0, call.query.limit), call.query.format);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/open-orders',
    access: 'trader',
    scope: 'read',
    rateLimited: true,
    tag: TAG,
    summary: 'The caller\'s resting orders',
    description:
      'Without `limit` and `before`: every resting order, oldest first (created_at, then id), as an array. With either: a page ' +
      '`{"orders", "next"}`, newest first (created_at, then id, descending); `before=<next>` continues with older orders.',
    query: PagedMarketQuery,
    success: { status: 200, description: 'array of Order, or a page of them', schema: z.union([z.array(OrderSchema), OrdersPage]) },
    errors: ['invalid_market', 'invalid_limit', 'invalid_cursor'],
    handle: (call) => {
      const books = call.context.service.state.books;
      const traderId = callerOf(call).trader_id;
      if (!wantsPage(call.query)) return books.openOrders(traderId, call.query.market);
      const limit = pageLimit(call.query.limit);
      const from = call.query.before === undefined ? null : decodeCursor('open-orders', call.query.before, ['string', 'string']);
      const all = books.openOrderRecords(traderId, call.query.market);
      const at = from === null ? null : { created_at: from[0] as string, id: from[1] as string };
      const page = pageBackwards(all, limit, at === null ? null : (o) => byCreatedThenId(o, at) < 0);
      const last = page.items[page.items.length - 1];
      return { orders: page.items.map(orderView), next: page.more && last !== undefined ? encodeCursor('open-orders', [last.created_at, last.id]) : null };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/fills',
    access: 'trader',
    scope: 'read',
    rateLimited: true,
    tag: TAG,
    summary: 'The caller\'s fills, as maker or taker',
    description:
      'Without `limit` and `before`: every fill, by occurred_at, then fill_id, as an array. With either: a page `{"fills", "next"}`, ' +
      'newest first (occurred_at, then fill_id, descending); `before=<next>` continues with older fills.',
    query: PagedMarketQuery,
    success: { status: 200, description: 'array of Fill, or a page of them', schema: z.union([z.array(FillSchema), FillsPage]) },
    errors: ['history_unavailable', 'invalid_market', 'invalid_limit', 'invalid_cursor'],
    handle: (call) => {
      const history = call.context.history;
      const traderId = callerOf(call).trader_id;
      const market = call.query.market;
      // The whole list is written as it is read (a long history is never one string).
      if (!wantsPage(call.query)) return streamJsonArray(call.res, 200, history.fills(traderId, market));
      const limit = pageLimit(call.query.limit);
      const from = call.query.before === undefined ? null : decodeCursor('fills', call.query.before, ['string', 'string']);
      const at = from === null ? null : { occurred_at: from[0] as string, fill_id: from[1] as string };
      return then(history.fillsPage(traderId, market, at, limit), (page) => {
        const last = page.items[page.items.length - 1];
        return { fills: page.items, next: page.more && last !== undefined ? encodeCursor('fills', [last.occurred_at, last.fill_id]) : null };
      });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/orders',
    access: 'trader',
    scope: 'trade',
    rateLimited: true,
    tag: TAG,
    summary: 'Submit an order (limit or market; GTC, IOC, FOK or POST_ONLY; with optional self-trade prevention and client order id)',
    description:
      'A client_order_id already used by the caller since the last reset: with the same parameters (market, side, type, price, quantity, ' +
      'time_in_force, self_trade_prevention) the answer is 200 with the first order as it is now, all its fills, and `duplicate: true`, and ' +
      'nothing changes; with other parameters 409 duplicate_client_order_id. Then the admission checks in this order, the first failing ' +
      'one answers: trading enabled; market symbol, configured, not disabled, not settled; price > 0 and a tick multiple (a market order ' +
      'carries no price and takes time_in_force IOC); quantity > 0 and >= min_order_quantity; worst-case net position (current net + ' +
      'resting orders of the same side + this order\'s full quantity) within the market\'s position_limit (+/-1000 unless the market sets ' +
      'one); a POST_ONLY order that would take liquidity is 409 post_only_would_take; a market order against an empty opposite side is 409 ' +
      'no_liquidity. Then matching at price-time priority, every execution at the maker\'s price; self-trade prevention as the order asks. ' +
      'IOC and market orders cancel what does not fill; a FOK order fills in full or expires with no fills. An order that would rest is ' +
      'refused whole (409 too_many_open_orders) when the caller already has the market\'s max_open_orders resting there. Each fill carries ' +
      'the caller\'s fee (price * quantity * the market\'s maker or taker bps / 10000; negative: a rebate) and liquidity.',
    body: SubmitOrderBody,
    fastBody: fastSubmitOrderBody,
    success: { status: 201, description: 'the order after matching, the fills it made, and whether a remainder rests', schema: SubmitOrderResponse, alternate: { status: 200, description: 'a repeated client_order_id with the same parameters: the first order as it is now, all its fills, duplicate: true' } },
    errors: ['history_unavailable', 
      'invalid_order_type',
      'invalid_time_in_force',
      'invalid_self_trade_prevention',
      'invalid_client_order_id',
      'duplicate_client_order_id',
      'post_only_would_take',
      'no_liquidity',
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
      'too_many_open_orders',
      'overflow',
    ],
    handle: (call) => {
      const traderId = callerOf(call).trader_id;
      const b = call.body;
      const state = call.context.service.state;
      // A client order id the books do not hold is looked up in the history first (order-lookups.ts).
      return withEarlierOrder(state, call.context.history, traderId, b.client_order_id, (lookup) =>
        runCommand(
          call,
          201,
          (s) => {
            const earlier = checkEarlier(state, lookup);
            const command = submitCommand(b, traderId, s);
            return earlier === undefined ? command : { ...command, earlier_order: earlier };
          },
          (event) => submitReply(state, eventOf(event, 'OrderSubmitted')),
        ),
      );
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/api/v1/orders/{order_id}',
    access: 'trader',
    scope: 'trade',
    rateLimited: true,
    tag: TAG,
    summary: 'Reduce the remaining quantity of a resting order',
    description: 'remaining must be > 0 and <= the current remaining (equal changes nothing); the order keeps its place in the queue.',
    params: OrderIdParams,
    body: AmendOrderBody,
    fastBody: fastAmendOrderBody,
    success: { status: 200, description: 'the order with its new remaining', schema: OrderResponse },
    errors: ['invalid_remaining', 'invalid_amend', 'order_not_found', 'order_not_owned'],
    handle: (call) => {
      const traderId = callerOf(call).trader_id;
      return changeOrder(call, (s) => ({ type: 'AmendOrder', time: s.time, trader_id: traderId, order_id: call.params.order_id, remaining: call.body.remaining }));
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/api/v1/orders/{order_id}',
    access: 'trader',
    scope: 'trade',
    rateLimited: true,
    tag: TAG,
    summary: 'Cancel a resting order',
    description: 'Allowed while trading is stopped or the market disabled. The answer shows the order as it was when cancelled (remaining = the cancelled quantity).',
    params: OrderIdParams,
    success: { status: 200, description: 'the cancelled order', schema: OrderResponse },
    errors: ['order_not_found', 'order_not_owned'],
    handle: (call) => {
      const traderId = callerOf(call).trader_id;
      return changeOrder(call, (s) => ({ type: 'CancelOrder', time: s.time, trader_id: traderId, order_id: call.params.order_id }));
    },
  }),
];
