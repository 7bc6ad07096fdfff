// The records of the public API as the dashboard reads them (exchange-service.md, websocket.md). The
// record shapes are the server's own view types (type-only imports, erased from the bundle), so a change
// to what the API answers breaks the dashboard's type check instead of the dashboard at run time.
import type { MessageLevel, Side } from '../../src/events/types.ts';
import type {
  AdminMessageView,
  BookOrderView,
  ControlsView,
  FillView,
  LeaderboardRow,
  MarketStatus,
  MarketView,
  OrderView,
  PositionView,
  SubmitReply,
} from '../../src/projections/views.ts';

export type { LeaderboardRow, MarketStatus, MessageLevel, Side, SubmitReply };
export type Market = MarketView;
export type Order = OrderView;
export type Fill = FillView;
export type Position = PositionView;
export type AdminMessage = AdminMessageView;
export type Controls = ControlsView;
/** An order as the l3 feed shows it. */
export type BookOrder = BookOrderView;

export interface Portfolio {
  readonly trader_id: string;
  readonly position_limit: number;
  /** Every market's position limit (competition-rules.md), by market_id. */
  readonly position_limits: Readonly<Record<string, number>>;
  readonly positions: readonly Position[];
}

/** An API key as GET .../keys shows it (never its secret). */
export interface ApiKey {
  readonly key_id: string;
  readonly scope: 'trade' | 'read';
  readonly label: string | null;
  readonly created_at: string;
  readonly expires_at: string | null;
  readonly last_used_at: string | null;
  readonly primary: boolean;
}

/** The answer to issuing a key: the secret is shown only here. */
export interface IssuedKey {
  readonly key: ApiKey;
  readonly api_key: string;
}

export interface TraderProfile {
  readonly trader_id: string;
  readonly username: string;
  readonly api_key: string;
  readonly created_at: string;
}

/** The persistence object of GET /api/v1/admin/state (the server's own type lives with its I/O code). */
export interface PersistenceStatus {
  readonly backend: string;
  readonly mode: string;
  readonly queue_depth: number;
  readonly in_flight_ops?: number;
  readonly total_enqueued?: number;
  readonly total_flushes?: number;
  readonly last_error: string | null;
}

export interface AdminState {
  readonly controls: Controls;
  readonly markets: readonly Market[];
  readonly recent_messages: readonly AdminMessage[];
  readonly persistence: PersistenceStatus;
}

export interface SettleReply {
  readonly market: Market;
  readonly canceled_orders: number;
  readonly affected_traders: number;
  readonly settled_quantity: number;
  readonly settlement_price: number;
}

export interface ResetReply {
  readonly cleared_orders: number;
  readonly cleared_positions: number;
  readonly cleared_fills: number;
}

/** GET /api/v1/admin/users. */
export interface TraderAccount {
  readonly trader_id: string;
  readonly username: string;
  readonly created_at: string;
  readonly disabled: boolean;
}

/** An entry of GET /api/v1/admin/schedule: the action's fields flat, as PUT takes them. */
export interface ScheduleEntry {
  readonly entry_id: string;
  readonly at: string;
  readonly action: string;
  readonly status: 'pending' | 'ran' | 'failed';
  readonly seq: number | null;
  readonly ran_at: string | null;
  readonly error: string | null;
  readonly [field: string]: unknown;
}

export interface Schedule {
  readonly pending: readonly ScheduleEntry[];
  readonly done: readonly ScheduleEntry[];
}

export type { OfficialStandingsView as OfficialStandings } from '../../src/projections/history/official.ts';
