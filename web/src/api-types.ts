// The records of the public API as the dashboard reads them (exchange-service.md, websocket.md). The
// dashboard is an ordinary client: it declares what it consumes instead of importing server internals.

export type Side = 'BUY' | 'SELL';
export type MarketStatus = 'enabled' | 'disabled' | 'settled';
export type MessageLevel = 'info' | 'warning' | 'critical';

export interface Market {
  readonly market_id: string;
  readonly display_name: string;
  readonly base_asset: string;
  readonly quote_asset: string;
  readonly tick_size: number;
  readonly min_order_quantity: number;
  readonly reference_price: number | null;
  readonly settlement_price: number | null;
  readonly status: MarketStatus;
  readonly created_at: string;
  readonly updated_at: string;
}

export interface Order {
  readonly id: string;
  readonly trader_id: string;
  readonly market: string;
  readonly side: Side;
  readonly price: number;
  readonly quantity: number;
  readonly remaining: number;
  readonly created_at: string;
}

export interface Fill {
  readonly fill_id: string;
  readonly market: string;
  readonly maker_order_id: string;
  readonly taker_order_id: string;
  readonly price: number;
  readonly quantity: number;
  readonly occurred_at: string;
}

export interface Position {
  readonly market: string;
  readonly net_quantity: number;
  readonly average_entry_price: number | null;
  readonly realized_pnl: number;
  readonly updated_at: string;
}

export interface Portfolio {
  readonly trader_id: string;
  readonly position_limit: number;
  readonly positions: readonly Position[];
}

export interface TraderProfile {
  readonly trader_id: string;
  readonly username: string;
  readonly api_key: string;
  readonly created_at: string;
}

export interface LeaderboardRow {
  readonly rank: number;
  readonly trader_id: string;
  readonly username: string;
  readonly net_pnl: number;
  readonly realized_pnl: number;
  readonly unrealized_pnl: number;
  readonly gross_exposure: number;
}

export interface AdminMessage {
  readonly message_id: string;
  readonly target_username: string | null;
  readonly target_trader_id: string | null;
  readonly market: string | null;
  readonly level: MessageLevel;
  readonly title: string | null;
  readonly body: string;
  readonly created_at: string;
}

export interface Controls {
  readonly trading_enabled: boolean;
  readonly updated_at: string;
}

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

export interface SubmitReply {
  readonly order: Order;
  readonly fills: readonly Fill[];
  readonly resting: boolean;
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

/** An order as the l3 feed shows it. */
export interface BookOrder {
  readonly order_id: string;
  readonly side: Side;
  readonly price: number;
  readonly remaining: number;
  readonly created_at: string;
}
