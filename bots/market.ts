// What a bot needs to know of a market it trades: the exchange's definition (tick, minimum quantity)
// and the configured behaviour for it.
import type { MarketSettings } from './config.ts';
import type { FairValue } from './fair-value.ts';

export interface BotMarket {
  readonly market_id: string;
  readonly tick_size: number;
  readonly min_order_quantity: number;
  readonly settings: MarketSettings;
  readonly fair: FairValue;
}

export interface BotEndpoints {
  readonly baseUrl: string;
  readonly wsUrl: string;
}
