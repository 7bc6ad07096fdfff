// Version 1 of the event vocabulary: the events of the first logs, which carry no `v`. The types that
// version 2 changed are spelled out here as they were written then; the others are unchanged.
import type { EventBody, FillFact, Side } from '../types.ts';

/** OrderSubmitted as version 1 wrote it: every order a GTC limit order, no self-trade prevention. */
export interface V1OrderSubmitted {
  readonly type: 'OrderSubmitted';
  readonly data: {
    readonly order: { readonly id: string; readonly trader_id: string; readonly market: string; readonly side: Side; readonly price: number; readonly quantity: number };
    readonly fills: readonly FillFact[];
    readonly remaining: number;
  };
}

export type V1EventBody = Exclude<
  EventBody,
  { type: 'OrderSubmitted' | 'OrdersCanceled' | 'TradersProvisioned' | 'ApiKeyRotated' | 'TraderDisabled' | 'TraderEnabled' | 'ScheduleSet' | 'ScheduledActionFailed' | 'LeaderboardFrozen' | 'ApiKeyIssued' | 'ApiKeyRevoked' }
> | V1OrderSubmitted;

/** A version-1 event as the first logs hold it. */
export type V1Event = V1EventBody & { readonly seq: number; readonly time: string; readonly v?: undefined };
