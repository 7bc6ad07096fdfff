// The records the service shows to clients, field for field as the specification names them.
import type { MessageLevel, OrderStatus, OrderType, SelfTradePrevention, Side, TimeInForce } from '../events/types.ts';

export interface OrderView {
  readonly id: string;
  readonly trader_id: string;
  readonly market: string;
  readonly side: Side;
  /** null for a market order. */
  readonly price: number | null;
  readonly quantity: number;
  /** Open: what rests. Canceled or expired: what was canceled. Filled: 0. */
  readonly remaining: number;
  readonly created_at: string;
  readonly client_order_id: string | null;
  readonly type: OrderType;
  readonly time_in_force: TimeInForce;
  readonly self_trade_prevention: SelfTradePrevention;
  readonly status: OrderStatus;
  /** Quantity-weighted mean price of the order's fills so far; null before its first fill. */
  readonly average_fill_price: number | null;
}

export type Liquidity = 'maker' | 'taker';

/** A fill as one of its two sides sees it: `fee` and `liquidity` are that side's. */
export interface FillView {
  readonly fill_id: string;
  readonly market: string;
  readonly maker_order_id: string;
  readonly taker_order_id: string;
  readonly price: number;
  readonly quantity: number;
  readonly occurred_at: string;
  /**
   * The fee this side paid, in the quote asset (negative: a rebate received); a trader whose order met
   * its own pays both sides' fees on the one fill it sees.
   */
  readonly fee: number;
  /** `maker` for the resting side, `taker` for the incoming one (and for a trader on both sides). */
  readonly liquidity: Liquidity;
}

export interface PositionView {
  readonly market: string;
  readonly net_quantity: number;
  readonly average_entry_price: number | null;
  /** After fees. */
  readonly realized_pnl: number;
  /** Fees paid in the market (negative: rebates received), in the quote asset. */
  readonly fees: number;
  readonly updated_at: string;
}

export type MarketStatus = 'enabled' | 'disabled' | 'settled';

export interface MarketView {
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
  // The market's rules (competition-rules.md), defaults included.
  readonly maker_fee_bps: number;
  readonly taker_fee_bps: number;
  readonly position_limit: number;
  readonly max_open_orders: number | null;
}

export interface ControlsView {
  readonly trading_enabled: boolean;
  readonly updated_at: string;
}

export interface TraderView {
  readonly trader_id: string;
  readonly username: string;
  readonly api_key_hash: string;
  readonly created_at: string;
  /** Present (true) only while the trader is disabled: its key is refused, it stays on the leaderboard. */
  readonly disabled?: true;
}

export interface AdminMessageView {
  readonly message_id: string;
  readonly target_username: string | null;
  readonly target_trader_id: string | null;
  readonly market: string | null;
  readonly level: MessageLevel;
  readonly title: string | null;
  readonly body: string;
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
  /** Present (true) only on the row of a disabled trader. */
  readonly disabled?: true;
}

/** An order as the l3 feed shows it. */
export interface BookOrderView {
  readonly order_id: string;
  readonly side: Side;
  readonly price: number;
  readonly remaining: number;
  readonly created_at: string;
}

/** The answer to an order submission (REST body, WS ack). */
export interface SubmitReply {
  readonly order: OrderView;
  readonly fills: FillView[];
  readonly resting: boolean;
  /** Present (true) only on the answer to a repeated client_order_id. */
  readonly duplicate?: true;
}
