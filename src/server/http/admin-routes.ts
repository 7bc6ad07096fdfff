// The operator routes: Authorization: Bearer <ADMIN_API_TOKEN>, never rate limited.
import { z } from 'zod';
import { AdminMessageBody, ConfigLoadBody, CreateUserBody, MarketDefinitionBody, MarketPatchBody, SettleMarketBody } from '../../commands/schemas.ts';
import type { ExchangeState } from '../../projections/exchange-state.ts';
import { DEFAULT_MESSAGE_LIMIT, postedMessage } from '../../projections/history/messages.ts';
import { then } from '../history/history.ts';
import type { MarketView } from '../../projections/views.ts';
import { STATE_HASH_VERSION, stateHash } from '../../projections/state-hash.ts';
import { hashApiKey, newApiKey } from '../clock.ts';
import { FormatQuery } from './csv.ts';
import { eventsExportRoute } from './events-export.ts';
import { sendLeaderboard } from './operator-routes.ts';
import { MarketIdParams, MessagesQuery } from './http-inputs.ts';
import {
  AdminMessageEntrySchema,
  AdminStateSchema,
  ConfigLoadResponse,
  ControlsResponse,
  DeletedMarketResponse,
  LeaderboardRowSchema,
  MarketSchema,
  ProfileResponse,
  ResetResponse,
  SettlementSchema,
  StateHashResponse,
} from './response-schemas.ts';
import { defineRoute, type AnyRoute } from './route.ts';
import { eventOf, runCommand } from './run-command.ts';

const TAG = 'Admin';
const MARKET_VALUE_ERRORS = ['invalid_market_definition', 'invalid_tick_size', 'invalid_min_order_quantity', 'invalid_reference_price', 'invalid_market_rule'] as const;

function marketNow(state: ExchangeState, marketId: string): MarketView {
  const market = state.markets.get(marketId);
  if (market === undefined) throw new Error(`market ${marketId} vanished before its reply`);
  return market;
}

/** POST /api/v1/admin/trading/start and /stop: the same route but for the command and the flag. */
function tradingControlRoute(action: 'start' | 'stop', summary: string): AnyRoute {
  const enabled = action === 'start';
  return defineRoute({
    method: 'post',
    path: `/api/v1/admin/trading/${action}`,
    access: 'admin',
    tag: TAG,
    summary,
    success: { status: 200, description: 'the controls', schema: ControlsResponse },
    errors: [],
    handle: (call) =>
      runCommand(call, 200, (s) => ({ type: enabled ? 'StartTrading' : 'StopTrading', time: s.time }), (event) => {
        eventOf(event, enabled ? 'TradingStarted' : 'TradingStopped');
        return { controls: { trading_enabled: enabled, updated_at: event.time } };
      }),
  });
}

export const adminRoutes: readonly AnyRoute[] = [
  defineRoute({
    method: 'post',
    path: '/api/v1/admin/users',
    access: 'admin',
    tag: TAG,
    summary: 'Provision a trader',
    description: 'The username is trimmed, 1 to 64 characters without control characters, unique. The API key is shown only in this answer.',
    body: CreateUserBody,
    success: { status: 201, description: 'the new profile including its API key', schema: ProfileResponse },
    errors: ['invalid_username', 'username_taken'],
    handle: (call) => {
      const apiKey = newApiKey();
      return runCommand(
        call,
        201,
        (s) => ({ type: 'ProvisionTrader', time: s.time, username: call.body.username, trader_id: s.uuid(), api_key_hash: hashApiKey(apiKey) }),
        (event) => {
          const { trader_id, username } = eventOf(event, 'TraderProvisioned').data;
          return { profile: { trader_id, username, api_key: apiKey, created_at: event.time } };
        },
      );
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/admin/users/reset',
    access: 'admin',
    tag: TAG,
    summary: 'Clear all positions, open orders and fills (irreversible)',
    description: 'Accounts and API keys are kept. Connected WebSocket clients receive resync_required.',
    success: { status: 200, description: 'what was cleared', schema: ResetResponse },
    errors: [],
    handle: (call) =>
      runCommand(call, 200, (s) => ({ type: 'ResetTrading', time: s.time }), (event) => eventOf(event, 'TradingReset').data),
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/admin/state',
    access: 'admin',
    tag: TAG,
    summary: 'Controls, markets, the 50 newest messages and the full persistence status',
    success: { status: 200, description: 'the admin snapshot', schema: AdminStateSchema },
    errors: ['history_unavailable'],
    handle: (call) => {
      const { state, persistence } = call.context.service;
      const controls = state.markets.controls;
      const markets = state.markets.list();
      return then(call.context.history.messages(DEFAULT_MESSAGE_LIMIT), (recent_messages) => ({ controls, markets, recent_messages, persistence: persistence.status(), limits: call.context.config.limits }));
    },
  }),
  tradingControlRoute('start', 'Accept order submissions again'),
  tradingControlRoute('stop', 'Reject new order submissions (cancels and amends still work)'),
  defineRoute({
    method: 'post',
    path: '/api/v1/admin/messages',
    access: 'admin',
    tag: TAG,
    summary: 'Post a message to one trader (target_username) or to everyone',
    description: 'Delivered over WebSocket as admin_message. The body must not be empty after trimming.',
    body: AdminMessageBody,
    success: { status: 200, description: 'the AdminMessageEntry', schema: AdminMessageEntrySchema },
    errors: ['invalid_message_body', 'user_not_found', 'invalid_market'],
    handle: (call) => {
      const b = call.body;
      return runCommand(
        call,
        200,
        (s) => ({
          type: 'PostAdminMessage',
          time: s.time,
          message_id: s.uuid(),
          target_username: b.target_username ?? null,
          market: b.market ?? null,
          level: b.level,
          title: b.title ?? null,
          body: b.body,
        }),
        (event) => postedMessage(eventOf(event, 'AdminMessagePosted')),
      );
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/admin/messages',
    access: 'admin',
    tag: TAG,
    summary: 'Operator messages, newest first',
    query: MessagesQuery,
    success: { status: 200, description: 'array of AdminMessageEntry', schema: z.array(AdminMessageEntrySchema) },
    errors: ['history_unavailable', 'invalid_query'],
    handle: (call) => call.context.history.messages(call.query.limit ?? DEFAULT_MESSAGE_LIMIT),
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/admin/config/load',
    access: 'admin',
    tag: TAG,
    summary: 'Load market definitions and optionally the trading control in one step',
    description: 'All or nothing: one invalid definition refuses the whole load. trading_enabled omitted keeps the current value.',
    body: ConfigLoadBody,
    success: { status: 200, description: 'the resulting controls and the full list of markets', schema: ConfigLoadResponse },
    errors: [...MARKET_VALUE_ERRORS, 'market_settled'],
    handle: (call) => {
      const state = call.context.service.state;
      return runCommand(
        call,
        200,
        (s) => ({ type: 'LoadConfig', time: s.time, trading_enabled: call.body.trading_enabled, markets: call.body.markets }),
        (event) => {
          eventOf(event, 'ConfigLoaded');
          return { controls: state.markets.controls, markets: state.markets.list() };
        },
      );
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/admin/leaderboard',
    access: 'admin',
    tag: TAG,
    summary: 'The leaderboard of all traders',
    description: 'CSV with Accept: text/csv or ?format=csv.',
    query: FormatQuery,
    success: { status: 200, description: 'array of LeaderboardRow', schema: z.array(LeaderboardRowSchema), alternateContentTypes: ['text/csv'] },
    errors: ['invalid_query'],
    handle: (call) => {
      const state = call.context.service.state;
      return sendLeaderboard(call, state.leaderboard.at(state.seq), call.query.format);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/admin/markets',
    access: 'admin',
    tag: TAG,
    summary: 'Create a market, or replace the definition of one that is not settled',
    body: MarketDefinitionBody,
    success: { status: 200, description: 'the Market', schema: MarketSchema },
    errors: [...MARKET_VALUE_ERRORS, 'market_settled'],
    handle: (call) => {
      const state = call.context.service.state;
      return runCommand(
        call,
        200,
        (s) => ({ type: 'UpsertMarket', time: s.time, market: call.body }),
        (event) => marketNow(state, eventOf(event, 'MarketUpserted').data.market.market_id),
      );
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/api/v1/admin/markets/{market_id}',
    access: 'admin',
    tag: TAG,
    summary: 'Change some fields of a market; enabled false disables it (resting orders stay)',
    params: MarketIdParams,
    body: MarketPatchBody,
    success: { status: 200, description: 'the Market', schema: MarketSchema },
    errors: [...MARKET_VALUE_ERRORS, 'market_not_configured', 'market_settled'],
    handle: (call) => {
      const state = call.context.service.state;
      return runCommand(
        call,
        200,
        (s) => ({ type: 'PatchMarket', time: s.time, market_id: call.params.market_id, changes: call.body }),
        (event) => marketNow(state, eventOf(event, 'MarketPatched').data.market_id),
      );
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/admin/markets/{market_id}/settle',
    access: 'admin',
    tag: TAG,
    summary: 'Settle a market: cancel its resting orders, realize every position at settlement_price, set them to zero',
    description: 'Final: a settled market cannot be re-opened, patched or upserted. A disabled market can be settled. Broadcasts an admin_message (the announcement, or a default text).',
    params: MarketIdParams,
    body: SettleMarketBody,
    success: { status: 200, description: 'the settlement summary', schema: SettlementSchema },
    errors: ['invalid_settlement_price', 'market_not_configured', 'market_settled', 'overflow'],
    handle: (call) => {
      const state = call.context.service.state;
      return runCommand(
        call,
        200,
        (s) => ({
          type: 'SettleMarket',
          time: s.time,
          market_id: call.params.market_id,
          settlement_price: call.body.settlement_price,
          announcement: call.body.announcement ?? null,
          message_id: s.uuid(),
        }),
        (event) => {
          const d = eventOf(event, 'MarketSettled').data;
          return { market: marketNow(state, d.market_id), canceled_orders: d.canceled_orders, affected_traders: d.affected_traders, settled_quantity: d.settled_quantity, settlement_price: d.settlement_price };
        },
      );
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/api/v1/admin/markets/{market_id}',
    access: 'admin',
    tag: TAG,
    summary: 'Remove a market that has no resting orders',
    description: 'Suggested order: settle, confirm no orders remain, delete.',
    params: MarketIdParams,
    success: { status: 200, description: 'the id of the removed market', schema: DeletedMarketResponse },
    errors: ['market_not_configured', 'market_has_open_orders'],
    handle: (call) =>
      runCommand(call, 200, (s) => ({ type: 'DeleteMarket', time: s.time, market_id: call.params.market_id }), (event) => ({
        market_id: eventOf(event, 'MarketDeleted').data.market_id,
      })),
  }),
  eventsExportRoute,
  defineRoute({
    method: 'get',
    path: '/api/v1/admin/state-hash',
    access: 'admin',
    tag: TAG,
    summary: 'The state hash at the head of the log (for auditors)',
    description:
      'SHA-256 over a canonical serialization of the live state and the chain hash of the log at that seq (which commits to every ' +
      'event, and so to the whole history), with the seq it was taken at and that chain hash. Replaying the log up to that seq ' +
      '(`npm run replay -- state --state-hash --until-seq N`) gives the same hash. Version 3 of the definition (docs/replay.md, ' +
      '"State hash"); computed on demand from the live state, whatever the length of the log.',
    success: { status: 200, description: 'seq, state_hash, chain_hash and hash_version', schema: StateHashResponse },
    errors: [],
    handle: (call) => {
      const { state, persistence } = call.context.service;
      const chain = persistence.headHash();
      return { seq: state.seq, state_hash: stateHash(state, chain), chain_hash: chain, hash_version: STATE_HASH_VERSION };
    },
  }),
];
