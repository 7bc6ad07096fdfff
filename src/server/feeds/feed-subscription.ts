// What a connection follows on the conflated channels (l2, ticker, standings). The hub
// (market-data-hub.ts) keeps its subscribers by connection, and a connection (ws/connection.ts) keeps
// its subscriptions by feedKey: both import these from here, not from each other.
export type FeedChannel = 'l2' | 'ticker' | 'standings';

/** What a connection follows on the conflated channels, keyed by feedKey(channel, market). */
export interface FeedSubscription {
  readonly channel: FeedChannel;
  readonly market: string | null;
  readonly depth: number | null;
}

export function feedKey(channel: FeedChannel, market: string | null): string {
  return market === null ? channel : `${channel} ${market}`;
}
