// The markets a demo starts with.

export interface DemoMarket {
  readonly market_id: string;
  readonly base_asset: string;
  readonly quote_asset: string;
  readonly display_name: string;
  readonly tick_size: number;
  readonly min_order_quantity: number;
  readonly reference_price: number;
  /** Typical fair-value move per second, in ticks. */
  readonly volatility_ticks: number;
}

export const DEMO_MARKETS: readonly DemoMarket[] = [
  { market_id: 'BTC-USD', base_asset: 'BTC', quote_asset: 'USD', display_name: 'Bitcoin / US Dollar', tick_size: 5, min_order_quantity: 1, reference_price: 64000, volatility_ticks: 2 },
  { market_id: 'ETH-USD', base_asset: 'ETH', quote_asset: 'USD', display_name: 'Ether / US Dollar', tick_size: 1, min_order_quantity: 1, reference_price: 3100, volatility_ticks: 2 },
  { market_id: 'SOL-USD', base_asset: 'SOL', quote_asset: 'USD', display_name: 'Solana / US Dollar', tick_size: 1, min_order_quantity: 1, reference_price: 150, volatility_ticks: 1 },
];
