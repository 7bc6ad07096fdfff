// The event vocabulary: one event per accepted command. An event records facts only: everything a
// fold needs to rebuild the state (ids, matched fills, counts), so applying it never decides anything.

export type Side = 'BUY' | 'SELL';
export type OrderType = 'LIMIT' | 'MARKET';
export type TimeInForce = 'GTC' | 'IOC' | 'FOK' | 'POST_ONLY';
export type SelfTradePrevention = 'NONE' | 'CANCEL_TAKER' | 'CANCEL_MAKER' | 'CANCEL_BOTH';
/** An order's status: resting, filled in full, canceled (by its owner, by matching rules or at settlement), or a FOK that could not fill. */
export type OrderStatus = 'open' | 'filled' | 'canceled' | 'expired';
export type CancelReason = 'request' | 'disconnect';
export type MessageLevel = 'info' | 'warning' | 'critical';

/**
 * The rules an organizer sets per market (schema version 3). A definition names only those that differ
 * from the defaults (no fees, a position limit of 1000, no cap on open orders), so a market defined
 * without them is recorded as it always was.
 */
export interface MarketRules {
  /** Basis points of price * quantity charged to the resting side of each fill (-100..100; negative: a rebate). Absent: 0. */
  readonly maker_fee_bps?: number;
  /** Basis points charged to the incoming side (0..100). Absent: 0. */
  readonly taker_fee_bps?: number;
  /** The worst-case net position bound. Absent: 1000. */
  readonly position_limit?: number;
  /** Resting orders one trader may have in the market. Absent: no cap. */
  readonly max_open_orders?: number;
}

export interface MarketDefinition extends MarketRules {
  readonly market_id: string;
  readonly display_name: string;
  readonly base_asset: string;
  readonly quote_asset: string;
  readonly tick_size: number;
  readonly min_order_quantity: number;
  readonly reference_price: number | null;
  readonly enabled: boolean;
}

export interface MarketChanges {
  readonly display_name?: string;
  readonly tick_size?: number;
  readonly min_order_quantity?: number;
  readonly reference_price?: number;
  readonly enabled?: boolean;
  // Rules (schema version 3): the new value; max_open_orders null lifts the cap.
  readonly maker_fee_bps?: number;
  readonly taker_fee_bps?: number;
  readonly position_limit?: number;
  readonly max_open_orders?: number | null;
}

export interface AdminMessageFact {
  readonly message_id: string;
  readonly target_username: string | null;
  readonly target_trader_id: string | null;
  readonly market: string | null;
  readonly level: MessageLevel;
  readonly title: string | null;
  readonly body: string;
}

/** One execution of a submitted order against a resting one, at the maker's price. */
export interface FillFact {
  readonly fill_id: string;
  readonly maker_order_id: string;
  readonly maker_trader_id: string;
  readonly price: number;
  readonly quantity: number;
  /** The maker's remaining after this execution; 0 means it left the book. */
  readonly maker_remaining: number;
  /**
   * The fees of this execution (schema version 3), in ten-thousandths of the quote asset: exactly
   * price * quantity * bps, an integer (a fee has at most four decimals). Present, both, only in a
   * market that charges a fee or pays a rebate; negative: a rebate paid to that side.
   */
  readonly maker_fee_e4?: number;
  readonly taker_fee_e4?: number;
}

export interface SubmittedOrderFact {
  readonly id: string;
  readonly trader_id: string;
  readonly market: string;
  readonly side: Side;
  /** null for a market order. */
  readonly price: number | null;
  readonly quantity: number;
  readonly type: OrderType;
  readonly time_in_force: TimeInForce;
  readonly self_trade_prevention: SelfTradePrevention;
  readonly client_order_id: string | null;
}

/** A resting order of the taker's own that self-trade prevention canceled while the taker matched. */
export interface SelfTradeCancelFact {
  readonly order_id: string;
  readonly side: Side;
  readonly price: number;
  /** Its remaining when canceled. */
  readonly remaining: number;
  /** How many of the submission's fills came before it: it left the book between fill n-1 and fill n. */
  readonly after_fills: number;
}

export interface OrderRefFact {
  readonly order_id: string;
  readonly trader_id: string;
  readonly market: string;
  readonly side: Side;
  readonly price: number;
}

/**
 * Present on the event of an action the schedule ran (the entry's id), absent otherwise: the log says
 * which entry ran, so a restart never runs it again.
 */
export interface ScheduledMark {
  readonly schedule_entry?: string;
}

/**
 * The largest fee a fill records, and a position sums, in ten-thousandths of the quote asset: below
 * 10^15, so every one is an exact double whose quotient by 10,000 prints back digit for digit
 * (src/projections/fee-math.ts).
 */
export const MAX_FEE_E4 = 999_999_999_999_999;

export type KeyScope = 'trade' | 'read';

/** An API key a trader holds beside the one provisioning (or the last rotation) gave it (schema version 3). */
export interface IssuedKeyFact {
  readonly trader_id: string;
  /** The key's id: the first 128 bits of its hash, written as a UUID (api-keys.ts). */
  readonly key_id: string;
  readonly api_key_hash: string;
  readonly scope: KeyScope;
  readonly label: string | null;
  /** RFC 3339 UTC with microseconds; from then on the key is refused as an unknown one. null: never. */
  readonly expires_at: string | null;
}

export interface ProvisionedTraderFact {
  readonly trader_id: string;
  readonly username: string;
  readonly api_key_hash: string;
}

/** What a schedule entry does when its time comes: the ordinary operator command it stands for. */
export type ScheduledAction =
  | { readonly action: 'start_trading' }
  | { readonly action: 'stop_trading' }
  | { readonly action: 'enable_market'; readonly market_id: string }
  | { readonly action: 'disable_market'; readonly market_id: string }
  | { readonly action: 'settle_market'; readonly market_id: string; readonly settlement_price: number; readonly announcement: string | null }
  | {
      readonly action: 'post_message';
      readonly level: MessageLevel;
      readonly body: string;
      readonly title: string | null;
      readonly market: string | null;
      readonly target_username: string | null;
    };

export type ScheduledActionName = ScheduledAction['action'];

export interface ScheduleEntryFact {
  readonly entry_id: string;
  /** RFC 3339 UTC with microseconds: the entry runs at the first moment at or after it. */
  readonly at: string;
  readonly action: ScheduledAction;
}

/** One row of frozen standings: the leaderboard row as it was, `disabled` only when true. */
export interface FrozenRowFact {
  readonly rank: number;
  readonly trader_id: string;
  readonly username: string;
  readonly net_pnl: number;
  readonly realized_pnl: number;
  readonly unrealized_pnl: number;
  readonly gross_exposure: number;
  readonly disabled?: true;
}

export interface FrozenLeaderboardFact {
  readonly label: string;
  /** The seq the standings are taken at (the freeze event's own seq minus one). */
  readonly as_of_seq: number;
  /** The chain hash of the log's event at as_of_seq (the genesis hash for an empty log). */
  readonly head_hash: string;
  readonly rows: readonly FrozenRowFact[];
}

export type EventBody =
  | { readonly type: 'TraderProvisioned'; readonly data: { readonly trader_id: string; readonly username: string; readonly api_key_hash: string } }
  | { readonly type: 'TradingReset'; readonly data: { readonly cleared_orders: number; readonly cleared_positions: number; readonly cleared_fills: number } }
  | { readonly type: 'TradingStarted'; readonly data: ScheduledMark }
  | { readonly type: 'TradingStopped'; readonly data: ScheduledMark }
  | { readonly type: 'ConfigLoaded'; readonly data: { readonly trading_enabled: boolean | null; readonly markets: readonly MarketDefinition[] } }
  | { readonly type: 'AdminMessagePosted'; readonly data: AdminMessageFact & ScheduledMark }
  | { readonly type: 'MarketUpserted'; readonly data: { readonly market: MarketDefinition } }
  | { readonly type: 'MarketPatched'; readonly data: { readonly market_id: string; readonly changes: MarketChanges } & ScheduledMark }
  | {
      readonly type: 'MarketSettled';
      readonly data: {
        readonly market_id: string;
        readonly settlement_price: number;
        readonly canceled_orders: number;
        readonly affected_traders: number;
        readonly settled_quantity: number;
        readonly announcement: AdminMessageFact;
      } & ScheduledMark;
    }
  | { readonly type: 'MarketDeleted'; readonly data: { readonly market_id: string; readonly mark_price: number | null } }
  | {
      readonly type: 'OrderSubmitted';
      readonly data: {
        readonly order: SubmittedOrderFact;
        readonly fills: readonly FillFact[];
        /** The taker's own resting orders canceled by self-trade prevention, in the order met. */
        readonly self_trade_canceled: readonly SelfTradeCancelFact[];
        /** What rests of the order after matching (> 0 only for a GTC or POST_ONLY limit order that rests). */
        readonly remaining: number;
        /** The order's status after the command; what neither filled nor rests was canceled, or expired (FOK). */
        readonly status: OrderStatus;
      };
    }
  | { readonly type: 'OrderAmended'; readonly data: OrderRefFact & { readonly previous_remaining: number; readonly remaining: number } }
  | { readonly type: 'OrderCanceled'; readonly data: OrderRefFact & { readonly remaining: number } }
  | {
      readonly type: 'OrdersCanceled';
      readonly data: {
        readonly trader_id: string;
        /** The market the cancel was limited to, or null for every market. */
        readonly market: string | null;
        readonly reason: CancelReason;
        /** Every order canceled, oldest first (created_at, then id), each with the remaining it had. */
        readonly orders: readonly (OrderRefFact & { readonly remaining: number })[];
      };
    }
  | { readonly type: 'TradersProvisioned'; readonly data: { readonly traders: readonly ProvisionedTraderFact[] } }
  | { readonly type: 'ApiKeyRotated'; readonly data: { readonly trader_id: string; readonly api_key_hash: string } }
  | {
      readonly type: 'TraderDisabled';
      readonly data: {
        readonly trader_id: string;
        /** Every open order of the trader, canceled by this event, oldest first, each with the remaining it had. */
        readonly canceled_orders: readonly (OrderRefFact & { readonly remaining: number })[];
      };
    }
  | { readonly type: 'TraderEnabled'; readonly data: { readonly trader_id: string } }
  | { readonly type: 'ScheduleSet'; readonly data: { readonly entries: readonly ScheduleEntryFact[] } }
  | { readonly type: 'ScheduledActionFailed'; readonly data: { readonly schedule_entry: string; readonly code: string; readonly message: string } }
  | { readonly type: 'LeaderboardFrozen'; readonly data: FrozenLeaderboardFact }
  | { readonly type: 'ApiKeyIssued'; readonly data: IssuedKeyFact }
  | { readonly type: 'ApiKeyRevoked'; readonly data: { readonly trader_id: string; readonly key_id: string } };

export type EventType = EventBody['type'];

/**
 * The schema version every event is written with. Events of version 1 (the first logs) carry no `v`;
 * later versions carry it, and src/events/upcasters/ reads older versions as the current one, so old
 * logs are never rewritten. Version 2 brought the trading extensions and running a competition;
 * version 3 the competition rules (docs/api.md, "Competition rules"): rules per market, fees on fills,
 * API keys with scopes.
 */
export const SCHEMA_VERSION = 3;
export type SchemaVersion = 1 | 2 | typeof SCHEMA_VERSION;
/** The versions that carry `v`. */
export type VersionMark = 2 | typeof SCHEMA_VERSION;

/**
 * A sequenced event as the log holds it: `seq` gap-free from 1, `time` the command's admission time,
 * `v` the schema version it was written with (absent: version 1). Every version-2 event is also a
 * version-3 event (version 3 only added), so one read as the current vocabulary keeps its `v: 2`.
 */
export type ExchangeEvent = EventBody & { readonly seq: number; readonly time: string; readonly v?: VersionMark };

export type EventOf<T extends EventType> = Extract<ExchangeEvent, { type: T }>;

export const EVENT_TYPES: readonly EventType[] = [
  'TraderProvisioned',
  'TradingReset',
  'TradingStarted',
  'TradingStopped',
  'ConfigLoaded',
  'AdminMessagePosted',
  'MarketUpserted',
  'MarketPatched',
  'MarketSettled',
  'MarketDeleted',
  'OrderSubmitted',
  'OrderAmended',
  'OrderCanceled',
  'OrdersCanceled',
  'TradersProvisioned',
  'ApiKeyRotated',
  'TraderDisabled',
  'TraderEnabled',
  'ScheduleSet',
  'ScheduledActionFailed',
  'LeaderboardFrozen',
  'ApiKeyIssued',
  'ApiKeyRevoked',
];
