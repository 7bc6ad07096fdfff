// Deciding operator commands on accounts, controls and messages.
import type { EventBody } from '../events/types.ts';
import type { ExchangeState } from '../projections/exchange-state.ts';
import { fail } from './errors.ts';
import { hasControlCharacters, isMarketSymbol, USERNAME_MAX } from './rules.ts';
import type { CommandOf } from './types.ts';

export function normalizeUsername(raw: string): string {
  const username = raw.trim();
  if (username.length === 0) fail('invalid_username', 'username is required');
  // Characters, not UTF-16 code units: an emoji counts once.
  if ([...username].length > USERNAME_MAX || hasControlCharacters(username)) fail('invalid_username', `username must be 1 to ${USERNAME_MAX} characters without control characters`);
  return username;
}

export function decideProvisionTrader(state: ExchangeState, c: CommandOf<'ProvisionTrader'>): EventBody {
  const username = normalizeUsername(c.username);
  if (state.traders.byUsername(username) !== undefined) fail('username_taken', `username ${username} already exists`);
  return { type: 'TraderProvisioned', data: { trader_id: c.trader_id, username, api_key_hash: c.api_key_hash } };
}

export function decideResetTrading(state: ExchangeState): EventBody {
  return {
    type: 'TradingReset',
    data: { cleared_orders: state.books.restingCount, cleared_positions: state.positions.recordCount, cleared_fills: state.fills.count },
  };
}

export function decidePostAdminMessage(state: ExchangeState, c: CommandOf<'PostAdminMessage'>): EventBody {
  const body = c.body.trim();
  if (body.length === 0) fail('invalid_message_body');
  if (c.market !== null && !isMarketSymbol(c.market)) fail('invalid_market', 'market must be a BASE-QUOTE symbol or null');
  let targetTraderId: string | null = null;
  if (c.target_username !== null) {
    const target = state.traders.byUsername(c.target_username.trim());
    if (target === undefined) fail('user_not_found', `target user ${c.target_username} not found`);
    targetTraderId = target.trader_id;
  }
  return {
    type: 'AdminMessagePosted',
    data: {
      message_id: c.message_id,
      target_username: c.target_username === null ? null : c.target_username.trim(),
      target_trader_id: targetTraderId,
      market: c.market,
      level: c.level,
      title: c.title,
      body,
    },
  };
}
