// Commands: what a trader or an operator asks for, already parsed (zod) and stamped by the server with
// the admission time and every new id, so deciding them is a pure function of state and command.
import type { CancelReason, KeyScope, MessageLevel, OrderType, ProvisionedTraderFact, ScheduledAction, SelfTradePrevention, Side, TimeInForce } from '../events/types.ts';
import type { OrderRecord } from '../projections/books.ts';
import type { MarketRulesInput } from './market-rule-checks.ts';

/** A market definition as an operator sends it, its rules included; values are checked by decide, not trusted. */
export interface MarketInput extends MarketRulesInput {
  readonly market_id: string;
  readonly base_asset: string;
  readonly quote_asset: string;
  readonly tick_size: number;
  readonly min_order_quantity: number;
  readonly reference_price: number | null;
  readonly enabled: boolean;
  readonly display_name?: string | null;
}

export interface MarketPatchInput extends MarketRulesInput {
  readonly display_name?: string;
  readonly tick_size?: number;
  readonly min_order_quantity?: number;
  readonly reference_price?: number;
  readonly enabled?: boolean;
}

export type CommandBody =
  | { readonly type: 'ProvisionTrader'; readonly username: string; readonly trader_id: string; readonly api_key_hash: string }
  | { readonly type: 'ResetTrading' }
  | { readonly type: 'StartTrading' }
  | { readonly type: 'StopTrading' }
  | { readonly type: 'LoadConfig'; readonly trading_enabled?: boolean | undefined; readonly markets: readonly MarketInput[] }
  | {
      readonly type: 'PostAdminMessage';
      readonly message_id: string;
      readonly target_username: string | null;
      readonly market: string | null;
      readonly level: MessageLevel;
      readonly title: string | null;
      readonly body: string;
    }
  | { readonly type: 'UpsertMarket'; readonly market: MarketInput }
  | { readonly type: 'PatchMarket'; readonly market_id: string; readonly changes: MarketPatchInput }
  | {
      readonly type: 'SettleMarket';
      readonly market_id: string;
      readonly settlement_price: number;
      readonly announcement: string | null;
      readonly message_id: string;
    }
  | { readonly type: 'DeleteMarket'; readonly market_id: string }
  | {
      readonly type: 'SubmitOrder';
      readonly trader_id: string;
      readonly market: string;
      readonly side: Side;
      /** null for a market order (a limit order without a price never gets here: the request schema refuses it). */
      readonly price: number | null;
      readonly quantity: number;
      readonly order_type: OrderType;
      readonly time_in_force: TimeInForce;
      readonly self_trade_prevention: SelfTradePrevention;
      readonly client_order_id: string | null;
      readonly order_id: string;
      /** Fill ids of this order are derived from this UUID (see fill-ids.ts): their count is unknown before matching. */
      readonly fill_id_seed: string;
      /**
       * The trader's earlier order with this client_order_id since the last reset, when the history holds
       * it (the books keep only open and recently finished orders): looked up at admission like the
       * time and the ids are stamped, so decide stays a function of the state and the command. Absent
       * when the history holds none (or when nobody looked, as in a re-run of a recorded submission).
       */
      readonly earlier_order?: OrderRecord;
    }
  | ({ readonly type: 'AmendOrder'; readonly trader_id: string; readonly remaining: number } & OrderRef)
  | ({ readonly type: 'CancelOrder'; readonly trader_id: string } & OrderRef)
  /** `only_if_open`: refused (no event) when the trader has nothing open (a disconnect over the trader's budget). */
  | { readonly type: 'CancelAllOrders'; readonly trader_id: string; readonly market: string | null; readonly reason: CancelReason; readonly only_if_open?: boolean }
  // Operator commands of running a competition (decide-operators.ts).
  /** Many traders at once, all or nothing; keys arrive hashed, never in clear. */
  | { readonly type: 'ProvisionTraders'; readonly traders: readonly ProvisionedTraderFact[] }
  | { readonly type: 'RotateApiKey'; readonly trader_id: string; readonly api_key_hash: string }
  | { readonly type: 'DisableTrader'; readonly trader_id: string }
  | { readonly type: 'EnableTrader'; readonly trader_id: string }
  /** Replaces every pending entry of the schedule; entries that ran stay in its history. */
  | { readonly type: 'SetSchedule'; readonly entries: readonly ScheduleEntryInput[] }
  /** Runs a due schedule entry as the command its action stands for; `message_id` serves settle and post actions. */
  | { readonly type: 'RunScheduledAction'; readonly entry_id: string; readonly message_id: string }
  /** A key beside the trader's own (competition-rules.md, "Keys"); it arrives hashed, never in clear. */
  | { readonly type: 'IssueApiKey'; readonly trader_id: string; readonly api_key_hash: string; readonly scope: KeyScope; readonly label: string | null; readonly expires_at: string | null }
  | { readonly type: 'RevokeApiKey'; readonly trader_id: string; readonly key_id: string }
  /** `head_hash` is the log's chain hash at the state's head, read where the log is appended. */
  | { readonly type: 'FreezeLeaderboard'; readonly label: string | null; readonly as_of_seq: number; readonly head_hash: string };

export interface ScheduleEntryInput {
  readonly entry_id: string;
  /** Any RFC 3339 time; decide normalizes it to microseconds UTC. */
  readonly at: string;
  readonly action: ScheduledAction;
}

/** An order named by its id, or by the client order id its owner gave it (looked up among the owner's orders only). */
export type OrderRef = { readonly order_id: string; readonly client_order_id?: undefined } | { readonly order_id?: undefined; readonly client_order_id: string };



export type CommandType = CommandBody['type'];

/** A command as admitted: `time` is the admission time, RFC 3339 UTC with microseconds. */
export type Command = CommandBody & { readonly time: string };

export type CommandOf<T extends CommandType> = Extract<Command, { type: T }>;
