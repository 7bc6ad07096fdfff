// Deciding the operator commands of a real competition: bulk provisioning, key rotation, disabling and
// enabling traders, the schedule and its entries, and freezing the official leaderboard.
import type { EventBody, FrozenRowFact, ProvisionedTraderFact, ScheduledAction } from '../events/types.ts';
import type { ExchangeState } from '../projections/exchange-state.ts';
import type { TraderView } from '../projections/views.ts';
import { normalizeUsername } from './decide-admin.ts';
import { DomainError, fail, isDomainError, Refusal } from './errors.ts';
import type { Command, CommandOf } from './types.ts';

/** How many usernames one bulk provisioning may hold. */
export const BULK_PROVISION_MAX = 10_000;
/** How many pending entries a schedule may hold. */
export const SCHEDULE_MAX_ENTRIES = 1_000;
export const FREEZE_LABEL_MAX = 128;
const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** A bad row of a bulk request, named by its 1-based position among the usernames. */
export interface BadRow {
  readonly row: number;
  readonly username: string;
  readonly problem: string;
}

export function badRowsText(rows: readonly BadRow[]): string {
  const shown = rows.map((r) => `row ${r.row} (${JSON.stringify(r.username)}): ${r.problem}`).join('; ');
  return `${rows.length} bad row${rows.length === 1 ? '' : 's'}, nothing provisioned: ${shown}`;
}

export function decideProvisionTraders(state: ExchangeState, c: CommandOf<'ProvisionTraders'>): EventBody {
  if (c.traders.length === 0) fail('invalid_request', 'no usernames given');
  if (c.traders.length > BULK_PROVISION_MAX) fail('too_many_rows', `at most ${BULK_PROVISION_MAX} usernames per request, got ${c.traders.length}`);
  const invalid: BadRow[] = [];
  const taken: BadRow[] = [];
  const seen = new Map<string, number>();
  const traders: ProvisionedTraderFact[] = [];
  c.traders.forEach((t, i) => {
    const row = i + 1;
    let username: string;
    try {
      username = normalizeUsername(t.username);
    } catch (err) {
      if (!isDomainError(err)) throw err;
      invalid.push({ row, username: t.username, problem: err.message });
      return;
    }
    const first = seen.get(username);
    if (first !== undefined) taken.push({ row, username, problem: `duplicate of row ${first}` });
    else if (state.traders.byUsername(username) !== undefined) taken.push({ row, username, problem: 'username already exists' });
    else seen.set(username, row);
    traders.push({ trader_id: t.trader_id, username, api_key_hash: t.api_key_hash });
  });
  // An invalid name is the caller's malformed input (400); otherwise a clash with a name (409).
  if (invalid.length > 0) fail('invalid_username', badRowsText([...invalid, ...taken].sort((a, b) => a.row - b.row)));
  if (taken.length > 0) fail('username_taken', badRowsText(taken));
  return { type: 'TradersProvisioned', data: { traders } };
}

function traderOf(state: ExchangeState, traderId: string): TraderView {
  const trader = state.traders.get(traderId);
  if (trader === undefined) fail('trader_not_found', `trader ${traderId} not found`);
  return trader;
}

export function decideRotateApiKey(state: ExchangeState, c: CommandOf<'RotateApiKey'>): EventBody {
  traderOf(state, c.trader_id);
  return { type: 'ApiKeyRotated', data: { trader_id: c.trader_id, api_key_hash: c.api_key_hash } };
}

export function decideDisableTrader(state: ExchangeState, c: CommandOf<'DisableTrader'>): EventBody {
  const trader = traderOf(state, c.trader_id);
  if (trader.disabled === true) fail('trader_disabled', `trader ${c.trader_id} is already disabled`);
  const canceled_orders = [];
  for (const o of state.books.openOrderRecords(c.trader_id, undefined)) {
    canceled_orders.push({ order_id: o.id, trader_id: o.trader_id, market: o.market, side: o.side, price: o.price, remaining: o.remaining });
  }
  return { type: 'TraderDisabled', data: { trader_id: c.trader_id, canceled_orders } };
}

export function decideEnableTrader(state: ExchangeState, c: CommandOf<'EnableTrader'>): EventBody {
  const trader = traderOf(state, c.trader_id);
  if (trader.disabled !== true) fail('trader_not_disabled', `trader ${c.trader_id} is not disabled`);
  return { type: 'TraderEnabled', data: { trader_id: c.trader_id } };
}

export function decideSetSchedule(c: CommandOf<'SetSchedule'>): EventBody {
  if (c.entries.length > SCHEDULE_MAX_ENTRIES) fail('invalid_schedule', `at most ${SCHEDULE_MAX_ENTRIES} entries`);
  const ids = new Set<string>();
  c.entries.forEach((e, i) => {
    if (!TIME.test(e.at)) fail('invalid_schedule', `entry ${i + 1}: at must be an RFC 3339 time`);
    if (e.at <= c.time) fail('invalid_schedule', `entry ${i + 1}: at ${e.at} is not in the future (now ${c.time})`);
    if (ids.has(e.entry_id)) throw new Error(`schedule: entry id ${e.entry_id} stamped twice`);
    ids.add(e.entry_id);
    checkAction(e.action, i + 1);
  });
  return { type: 'ScheduleSet', data: { entries: c.entries.map((e) => ({ entry_id: e.entry_id, at: e.at, action: e.action })) } };
}

/** What can be checked now; the rest (the market exists, is not settled) when the entry runs. */
function checkAction(a: ScheduledAction, n: number): void {
  switch (a.action) {
    case 'settle_market':
      if (!Number.isSafeInteger(a.settlement_price) || a.settlement_price <= 0) fail('invalid_schedule', `entry ${n}: settlement_price must be an integer greater than 0`);
      break;
    case 'post_message':
      if (a.body.trim() === '') fail('invalid_schedule', `entry ${n}: message body must not be empty`);
      break;
    default:
      break;
  }
}

/** The ordinary command a scheduled action stands for. */
function commandOfAction(a: ScheduledAction, time: string, messageId: string): Command {
  switch (a.action) {
    case 'start_trading':
      return { type: 'StartTrading', time };
    case 'stop_trading':
      return { type: 'StopTrading', time };
    case 'enable_market':
      return { type: 'PatchMarket', time, market_id: a.market_id, changes: { enabled: true } };
    case 'disable_market':
      return { type: 'PatchMarket', time, market_id: a.market_id, changes: { enabled: false } };
    case 'settle_market':
      return { type: 'SettleMarket', time, market_id: a.market_id, settlement_price: a.settlement_price, announcement: a.announcement, message_id: messageId };
    case 'post_message':
      return { type: 'PostAdminMessage', time, message_id: messageId, target_username: a.target_username, market: a.market, level: a.level, title: a.title, body: a.body };
  }
}

/**
 * A due entry runs as its ordinary command, and the event that command gives names the entry. A
 * refusal (the market was settled meanwhile, say) is recorded too, so the entry is done either way and
 * a restart never runs it again.
 */
export function decideRunScheduledAction(state: ExchangeState, c: CommandOf<'RunScheduledAction'>, decideInner: (command: Command) => EventBody | Refusal): EventBody {
  const entry = state.schedule.pending(c.entry_id);
  if (entry === undefined) fail('schedule_entry_not_pending', `schedule entry ${c.entry_id} is not pending`);
  if (c.time < entry.at) fail('schedule_entry_not_due', `schedule entry ${c.entry_id} is due at ${entry.at}`);
  let body: EventBody | Refusal;
  try {
    body = decideInner(commandOfAction(entry.action, c.time, c.message_id));
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    body = Refusal.of(err);
  }
  if (body instanceof Refusal) return { type: 'ScheduledActionFailed', data: { schedule_entry: c.entry_id, code: body.code, message: body.message } };
  return { type: body.type, data: { ...body.data, schedule_entry: c.entry_id } } as EventBody;
}

export function decideFreezeLeaderboard(state: ExchangeState, c: CommandOf<'FreezeLeaderboard'>): EventBody {
  if (c.as_of_seq !== state.seq) throw new Error(`freeze: stamped at seq ${c.as_of_seq}, decided at ${state.seq}`);
  const label = c.label === null ? `seq ${c.as_of_seq}` : c.label.trim();
  if (label === '' || [...label].length > FREEZE_LABEL_MAX || /[\u0000-\u001f\u007f]/.test(label)) fail('invalid_label', `label must be 1 to ${FREEZE_LABEL_MAX} characters without control characters`);
  if (state.official.seqOf(label) !== undefined) fail('label_taken', `label ${JSON.stringify(label)} was already used`);
  const rows: FrozenRowFact[] = state.leaderboard.at(state.seq).map((r) => ({ ...r }));
  return { type: 'LeaderboardFrozen', data: { label, as_of_seq: c.as_of_seq, head_hash: c.head_hash, rows } };
}
