// Path and query parameters: HTTP-only inputs (bodies are shared with WebSocket in src/commands/schemas.ts).
import { z } from 'zod';
import { isMarketSymbol } from '../../commands/rules.ts';

/** A query-string integer: digits only, so `?limit=` or `?limit=1e3` are refused rather than read as 0 or 1000. */
const QueryInt = z
  .string()
  .regex(/^\d{1,15}$/, 'expected a non-negative integer')
  .transform(Number)
  .meta({ type: 'integer', minimum: 0 });

export const OrderIdParams = z.object({ order_id: z.uuid('expected a UUID').meta({ description: 'the order id' }) });
export type OrderIdParams = z.infer<typeof OrderIdParams>;

export const MarketIdParams = z.object({ market_id: z.string().meta({ description: 'the market id, `{base_asset}-{quote_asset}`', example: 'BTC-USD' }) });
export type MarketIdParams = z.infer<typeof MarketIdParams>;

export const MarketFilterQuery = z.object({
  market: z
    .string()
    .refine(isMarketSymbol, 'expected BASE-QUOTE')
    .optional()
    .meta({ description: 'only this market (BASE-QUOTE)', example: 'BTC-USD' }),
});
export type MarketFilterQuery = z.infer<typeof MarketFilterQuery>;

export const LeaderboardQuery = z.object({
  limit: QueryInt.optional().meta({ description: 'at most this many rows; omit for all traders' }),
  format: z.enum(['json', 'csv']).optional().meta({ description: 'csv: the rows as CSV (as Accept: text/csv does)' }),
});
export type LeaderboardQuery = z.infer<typeof LeaderboardQuery>;

export const MessagesQuery = z.object({ limit: QueryInt.optional().meta({ description: 'at most this many entries, newest first (default 50)' }) });
export type MessagesQuery = z.infer<typeof MessagesQuery>;

export const EventsQuery = z.object({ after_seq: QueryInt.optional().meta({ description: 'only events with seq greater than this (default 0: the whole log)' }) });
export type EventsQuery = z.infer<typeof EventsQuery>;
