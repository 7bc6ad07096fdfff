// The command that an event records the outcome of. An auditor re-runs these through decide and
// checks that every recorded outcome (fills, prices, remainders, settlement figures) comes out again.
// The fill ids of a submission come from a seed that is the first fill's id (fill-ids.ts).
import type { ExchangeEvent } from '../events/types.ts';
import type { Command } from './types.ts';

/** Stands in for a message id the re-run never reaches (an action that was refused). */
const NO_MESSAGE = '00000000-0000-4000-8000-000000000000';

export function commandOf(e: ExchangeEvent): Command {
  const time = e.time;
  // An action the schedule ran: re-run as the entry, so the audit also checks it ran what was scheduled.
  if ('schedule_entry' in e.data && e.data.schedule_entry !== undefined) {
    const message_id = e.type === 'AdminMessagePosted' ? e.data.message_id : e.type === 'MarketSettled' ? e.data.announcement.message_id : NO_MESSAGE;
    return { type: 'RunScheduledAction', time, entry_id: e.data.schedule_entry, message_id };
  }
  switch (e.type) {
    case 'TraderProvisioned':
      return { type: 'ProvisionTrader', time, username: e.data.username, trader_id: e.data.trader_id, api_key_hash: e.data.api_key_hash };
    case 'TradingReset':
      return { type: 'ResetTrading', time };
    case 'TradingStarted':
      return { type: 'StartTrading', time };
    case 'TradingStopped':
      return { type: 'StopTrading', time };
    case 'ConfigLoaded':
      return { type: 'LoadConfig', time, trading_enabled: e.data.trading_enabled ?? undefined, markets: e.data.markets };
    case 'AdminMessagePosted': {
      const m = e.data;
      return { type: 'PostAdminMessage', time, message_id: m.message_id, target_username: m.target_username, market: m.market, level: m.level, title: m.title, body: m.body };
    }
    case 'MarketUpserted':
      return { type: 'UpsertMarket', time, market: e.data.market };
    case 'MarketPatched':
      return { type: 'PatchMarket', time, market_id: e.data.market_id, changes: e.data.changes };
    case 'MarketSettled':
      return { type: 'SettleMarket', time, market_id: e.data.market_id, settlement_price: e.data.settlement_price, announcement: e.data.announcement.body, message_id: e.data.announcement.message_id };
    case 'MarketDeleted':
      return { type: 'DeleteMarket', time, market_id: e.data.market_id };
    case 'OrderSubmitted': {
      const o = e.data.order;
      const seed = e.data.fills[0]?.fill_id ?? '00000000-0000-4000-8000-000000000000';
      return {
        type: 'SubmitOrder',
        time,
        trader_id: o.trader_id,
        market: o.market,
        side: o.side,
        price: o.price,
        quantity: o.quantity,
        order_type: o.type,
        time_in_force: o.time_in_force,
        self_trade_prevention: o.self_trade_prevention,
        client_order_id: o.client_order_id,
        order_id: o.id,
        fill_id_seed: seed,
      };
    }
    case 'OrderAmended':
      return { type: 'AmendOrder', time, trader_id: e.data.trader_id, order_id: e.data.order_id, remaining: e.data.remaining };
    case 'OrderCanceled':
      return { type: 'CancelOrder', time, trader_id: e.data.trader_id, order_id: e.data.order_id };
    case 'OrdersCanceled':
      return { type: 'CancelAllOrders', time, trader_id: e.data.trader_id, market: e.data.market, reason: e.data.reason };
    case 'TradersProvisioned':
      return { type: 'ProvisionTraders', time, traders: e.data.traders };
    case 'ApiKeyRotated':
      return { type: 'RotateApiKey', time, trader_id: e.data.trader_id, api_key_hash: e.data.api_key_hash };
    case 'TraderDisabled':
      return { type: 'DisableTrader', time, trader_id: e.data.trader_id };
    case 'TraderEnabled':
      return { type: 'EnableTrader', time, trader_id: e.data.trader_id };
    case 'ScheduleSet':
      return { type: 'SetSchedule', time, entries: e.data.entries };
    case 'ScheduledActionFailed':
      return { type: 'RunScheduledAction', time, entry_id: e.data.schedule_entry, message_id: NO_MESSAGE };
    case 'LeaderboardFrozen':
      return { type: 'FreezeLeaderboard', time, label: e.data.label, as_of_seq: e.data.as_of_seq, head_hash: e.data.head_hash };
    case 'ApiKeyIssued':
      return { type: 'IssueApiKey', time, trader_id: e.data.trader_id, api_key_hash: e.data.api_key_hash, scope: e.data.scope, label: e.data.label, expires_at: e.data.expires_at };
    case 'ApiKeyRevoked':
      return { type: 'RevokeApiKey', time, trader_id: e.data.trader_id, key_id: e.data.key_id };
  }
}
