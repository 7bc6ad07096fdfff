// The operator routes of a real competition (docs/api.md, "Running a competition"): bulk provisioning, key rotation, disabling and
// enabling traders, the schedule, and the official leaderboard. Each change of state is one command.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { BULK_PROVISION_MAX } from '../../commands/decide-operators.ts';
import { DomainError } from '../../commands/errors.ts';
import type { ScheduledAction } from '../../events/types.ts';
import type { ExchangeState } from '../../projections/exchange-state.ts';
import { officialStandingsView, type OfficialStandingsView } from '../../projections/history/official.ts';
import type { ScheduleEntryView } from '../../projections/schedule.ts';
import type { LeaderboardRow, TraderView } from '../../projections/views.ts';
import { formatMicros, hashApiKey, newApiKey, parseMicros } from '../clock.ts';
import { then } from '../history/history.ts';
import { readUsernames, sendCsv, wantsCsv } from './csv.ts';
import { BulkUsersBody, FreezeBody, OfficialQuery, ScheduleBody, type ScheduleEntryBody, TraderIdParams } from './operator-inputs.ts';
import { BulkProfilesResponse, DisabledResponse, OfficialStandingsSchema, ProfileResponse, ScheduleSchema, TraderAccountSchema } from './response-schemas.ts';
import { defineRoute, REPLIED, type AnyRoute } from './route.ts';
import { eventOf, runCommand } from './run-command.ts';

const TAG = 'Admin';

export const LEADERBOARD_COLUMNS = ['rank', 'trader_id', 'username', 'net_pnl', 'realized_pnl', 'unrealized_pnl', 'gross_exposure', 'disabled'] as const;
const PROFILE_COLUMNS = ['username', 'trader_id', 'api_key', 'created_at'];

/** A leaderboard as CSV: `disabled` is true or empty. */
export function leaderboardCsvRecords(rows: readonly LeaderboardRow[]): Record<string, unknown>[] {
  return rows.map((r) => ({ ...r, disabled: r.disabled === true ? true : '' }));
}

export function accountView(t: TraderView): { trader_id: string; username: string; created_at: string; disabled: boolean } {
  return { trader_id: t.trader_id, username: t.username, created_at: t.created_at, disabled: t.disabled === true };
}

/** An entry as GET /api/v1/admin/schedule shows it: the action's fields flat, as PUT takes them. */
function entryView(e: ScheduleEntryView): Record<string, unknown> {
  return { entry_id: e.entry_id, at: e.at, ...e.action, status: e.status, scheduled_seq: e.scheduled_seq, seq: e.seq, ran_at: e.ran_at, error: e.error };
}

export function scheduleView(state: ExchangeState): { pending: Record<string, unknown>[]; done: Record<string, unknown>[] } {
  return { pending: state.schedule.pendingList().map(entryView), done: state.schedule.doneList().map(entryView) };
}

function actionOf(e: ScheduleEntryBody): ScheduledAction {
  switch (e.action) {
    case 'start_trading':
    case 'stop_trading':
      return { action: e.action };
    case 'enable_market':
    case 'disable_market':
      return { action: e.action, market_id: e.market_id };
    case 'settle_market':
      return { action: e.action, market_id: e.market_id, settlement_price: e.settlement_price, announcement: e.announcement ?? null };
    case 'post_message':
      return { action: e.action, level: e.level, body: e.body, title: e.title ?? null, market: e.market ?? null, target_username: e.target_username ?? null };
  }
}

function officialCsvRecords(list: readonly OfficialStandingsView[]): Record<string, unknown>[] {
  return list.flatMap((o) => leaderboardCsvRecords(o.rows).map((r) => ({ label: o.label, as_of_seq: o.as_of_seq, head_hash: o.head_hash, ...r })));
}

export const officialLeaderboardRoute: AnyRoute = defineRoute({
  method: 'get',
  path: '/api/v1/leaderboard/official',
  access: 'public',
  tag: 'Public',
  summary: 'The official standings frozen by the operator, oldest first',
  description:
    'Each entry is the leaderboard as it stood at as_of_seq, with the log\'s chain hash there (head_hash); anyone holding the log can ' +
    'recompute both with `npm run replay -- prove --label L`. CSV with Accept: text/csv or ?format=csv (one line per row, the label repeated).',
  query: OfficialQuery,
  success: { status: 200, description: 'array of OfficialStandings', schema: z.array(OfficialStandingsSchema), alternateContentTypes: ['text/csv'] },
  errors: ['history_unavailable', 'invalid_query', 'official_not_found'],
  handle: (call) => {
    const history = call.context.history;
    const label = call.query.label;
    const found =
      label === undefined
        ? history.standings()
        : then(history.standing(label), (one) => {
            if (one === undefined) throw new DomainError('official_not_found', `no frozen standings labelled ${JSON.stringify(label)}`);
            return [one];
          });
    return then(found, (list) => {
      if (!wantsCsv(call.req, call.query.format)) return list;
      sendCsv(call.res, 200, ['label', 'as_of_seq', 'head_hash', ...LEADERBOARD_COLUMNS], officialCsvRecords(list), 'official-standings.csv');
      return REPLIED;
    });
  },
});

export const operatorRoutes: readonly AnyRoute[] = [
  defineRoute({
    method: 'post',
    path: '/api/v1/admin/users/bulk',
    access: 'admin',
    tag: TAG,
    summary: 'Provision many traders at once (all or nothing)',
    description:
      'A JSON array of usernames, or {"usernames": [...]}, or a CSV upload (Content-Type: text/csv) with a `username` column (other ' +
      'columns ignored), at most 10000 names. One invalid or duplicate name (within the request or with an existing trader) refuses the ' +
      'whole request and the error names every bad row (1-based, header not counted). Each API key is shown only in this answer: JSON, ' +
      'or CSV (username,trader_id,api_key,created_at) with Accept: text/csv. The body limit is BULK_PROVISION_BODY_LIMIT_BYTES.',
    body: BulkUsersBody,
    bodyLimit: (config) => config.bulkProvisionBodyLimitBytes,
    readBody: readUsernames,
    bodyContentTypes: ['text/csv'],
    success: { status: 201, description: 'every new profile with its API key', schema: BulkProfilesResponse, alternateContentTypes: ['text/csv'] },
    errors: ['invalid_username', 'username_taken', 'too_many_rows', 'invalid_csv'],
    handle: (call) => {
      const usernames = call.body as string[];
      if (usernames.length === 0) throw new DomainError('invalid_request', 'no usernames given');
      if (usernames.length > BULK_PROVISION_MAX) throw new DomainError('too_many_rows', `at most ${BULK_PROVISION_MAX} usernames per request, got ${usernames.length}`);
      // Keys are hashed here: the command, the event and the log only ever hold their SHA-256.
      const keys = usernames.map(() => newApiKey());
      const csv = wantsCsv(call.req);
      return runCommand(
        call,
        201,
        (s) => ({ type: 'ProvisionTraders', time: s.time, traders: usernames.map((username, i) => ({ username, trader_id: s.uuid(), api_key_hash: hashApiKey(keys[i] as string) })) }),
        (event) => {
          const profiles = eventOf(event, 'TradersProvisioned').data.traders.map((t, i) => ({ trader_id: t.trader_id, username: t.username, api_key: keys[i] as string, created_at: event.time }));
          return { profiles };
        },
        csv ? (res, status, body) => sendCsv(res, status, PROFILE_COLUMNS, (body as { profiles: Record<string, unknown>[] }).profiles, 'profiles.csv') : undefined,
      );
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/admin/users',
    access: 'admin',
    tag: TAG,
    summary: 'Every trader account, with whether it is disabled (never its key)',
    success: { status: 200, description: 'array of TraderAccount, by username', schema: z.array(TraderAccountSchema) },
    errors: [],
    handle: (call) =>
      [...call.context.service.state.traders.all()].map(accountView).sort((a, b) => (a.username < b.username ? -1 : a.username > b.username ? 1 : 0)),
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/admin/users/{trader_id}/rotate-key',
    access: 'admin',
    tag: TAG,
    summary: 'Issue a new API key; the old one stops working at once',
    description: 'The new key is shown only in this answer. REST requests with the old key get 401 invalid_api_key; WebSocket sessions authenticated with it are closed (code 4001, reason "api key rotated").',
    params: TraderIdParams,
    success: { status: 200, description: 'the profile with its new API key', schema: ProfileResponse },
    errors: ['trader_not_found'],
    handle: (call) => {
      const apiKey = newApiKey();
      const state = call.context.service.state;
      return runCommand(
        call,
        200,
        (s) => ({ type: 'RotateApiKey', time: s.time, trader_id: call.params.trader_id, api_key_hash: hashApiKey(apiKey) }),
        (event) => {
          const t = state.traders.get(eventOf(event, 'ApiKeyRotated').data.trader_id) as TraderView;
          return { profile: { trader_id: t.trader_id, username: t.username, api_key: apiKey, created_at: t.created_at } };
        },
      );
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/admin/users/{trader_id}/disable',
    access: 'admin',
    tag: TAG,
    summary: 'Disable a trader: cancel its open orders, refuse its key, close its WebSocket sessions',
    description:
      'In one event: every open order of the trader is canceled. Its key then gets 401 unauthenticated (REST and WebSocket authenticate); ' +
      'its WebSocket sessions are closed (code 4001, reason "trader disabled"). It stays on the leaderboard with disabled: true.',
    params: TraderIdParams,
    success: { status: 200, description: 'the account and the orders canceled', schema: DisabledResponse },
    errors: ['trader_not_found', 'trader_disabled'],
    handle: (call) => {
      const state = call.context.service.state;
      return runCommand(call, 200, (s) => ({ type: 'DisableTrader', time: s.time, trader_id: call.params.trader_id }), (event) => {
        const d = eventOf(event, 'TraderDisabled').data;
        return { trader: accountView(state.traders.get(d.trader_id) as TraderView), canceled_orders: d.canceled_orders };
      });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/admin/users/{trader_id}/enable',
    access: 'admin',
    tag: TAG,
    summary: 'Enable a disabled trader again (its key, rotated or not, works again)',
    params: TraderIdParams,
    success: { status: 200, description: 'the account', schema: z.object({ trader: TraderAccountSchema }) },
    errors: ['trader_not_found', 'trader_not_disabled'],
    handle: (call) => {
      const state = call.context.service.state;
      return runCommand(call, 200, (s) => ({ type: 'EnableTrader', time: s.time, trader_id: call.params.trader_id }), (event) => ({
        trader: accountView(state.traders.get(eventOf(event, 'TraderEnabled').data.trader_id) as TraderView),
      }));
    },
  }),
  defineRoute({
    method: 'put',
    path: '/api/v1/admin/schedule',
    access: 'admin',
    tag: TAG,
    summary: 'Replace the pending schedule of timed actions',
    description:
      'Each entry: `at` (RFC 3339, in the future) and `action`: start_trading, stop_trading, enable_market / disable_market (market_id), ' +
      'settle_market (market_id, settlement_price, announcement), post_message (level, body, title, market, target_username). ' +
      'Every pending entry is replaced (an empty list clears them); entries that ran stay in the history. Each runs as the ordinary ' +
      'command when its time comes, and its event names the entry; a refused action is recorded as ScheduledActionFailed.',
    body: ScheduleBody,
    success: { status: 200, description: 'the schedule', schema: ScheduleSchema },
    errors: ['invalid_schedule'],
    handle: (call) => {
      const state = call.context.service.state;
      const entries = call.body.entries.map((e) => ({ at: formatMicros(parseMicros(e.at)), action: actionOf(e) }));
      return runCommand(
        call,
        200,
        (s) => ({ type: 'SetSchedule', time: s.time, entries: entries.map((e) => ({ entry_id: s.uuid(), ...e })) }),
        (event) => {
          eventOf(event, 'ScheduleSet');
          return scheduleView(state);
        },
      );
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/admin/schedule',
    access: 'admin',
    tag: TAG,
    summary: 'What is pending (in the order it will run) and what ran, with the seq of the event each produced',
    success: { status: 200, description: 'the schedule', schema: ScheduleSchema },
    errors: [],
    handle: (call) => scheduleView(call.context.service.state),
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/admin/leaderboard/freeze',
    access: 'admin',
    tag: TAG,
    summary: 'Record the leaderboard as it stands now as official standings',
    description: 'With the seq it stands at and the log\'s chain hash there. The label (default "seq N") must be new: a label used before is 409.',
    body: FreezeBody,
    success: { status: 201, description: 'the frozen standings', schema: OfficialStandingsSchema },
    errors: ['invalid_label', 'label_taken'],
    handle: (call) => {
      const { state, persistence } = call.context.service;
      return runCommand(
        call,
        201,
        // Stamped right before it is decided, in the same tick: the head the hash belongs to is the one decided on.
        (s) => ({ type: 'FreezeLeaderboard', time: s.time, label: call.body.label ?? null, as_of_seq: state.seq, head_hash: persistence.headHash() }),
        (event) => officialStandingsView(eventOf(event, 'LeaderboardFrozen')),
      );
    },
  }),
];

export function sendLeaderboard(call: { req: IncomingMessage; res: ServerResponse }, rows: readonly LeaderboardRow[], format: 'json' | 'csv' | undefined): unknown {
  if (!wantsCsv(call.req, format)) return rows;
  sendCsv(call.res, 200, LEADERBOARD_COLUMNS, leaderboardCsvRecords(rows), 'leaderboard.csv');
  return REPLIED;
}
