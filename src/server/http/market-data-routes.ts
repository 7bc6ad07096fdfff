// Public market data of trading-extensions.md: the trade tape of a market, paged newest first, and
// OHLCV candles computed from it. No authentication, like the market list.
import { z } from 'zod';
import { DomainError } from '../../commands/errors.ts';
import { isMarketSymbol } from '../../commands/rules.ts';
import { CANDLE_INTERVALS, MAX_CANDLES, timeMicros, type CandleInterval } from '../../projections/candles.ts';
import { tradeView } from '../../projections/history/trade-tape.ts';
import { then } from '../history/history.ts';
import type { ExchangeState } from '../../projections/exchange-state.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';
import { MarketIdParams } from './http-inputs.ts';
import { PageQuery, pageLimit } from './paging.ts';
import { CandlesResponse, TradesPage } from './response-schemas.ts';
import { defineRoute, type AnyRoute } from './route.ts';

const TAG = 'Market data';

const CandlesQuery = z.object({
  interval: z.enum(Object.keys(CANDLE_INTERVALS) as [CandleInterval, ...CandleInterval[]]).optional().meta({ description: 'bucket width (default 1m)' }),
  from: z.string().optional().meta({ description: 'RFC 3339, inclusive (default: the start of the 100 buckets ending now)' }),
  to: z.string().optional().meta({ description: 'RFC 3339, exclusive (default: the end of the bucket holding now)' }),
});

/** The market must be a BASE-QUOTE symbol (400) of a configured market (404). */
function knownMarket(state: ExchangeState, id: string): void {
  if (!isMarketSymbol(id)) throw new DomainError('invalid_market');
  if (state.markets.get(id) === undefined) throw new DomainError('market_not_configured', `market ${id} is not configured`);
}

function time(raw: string, name: string): number {
  const micros = timeMicros(raw);
  if (!Number.isFinite(micros)) throw new DomainError('invalid_query', `${name}: expected an RFC 3339 timestamp`);
  return micros;
}

export const marketDataRoutes: readonly AnyRoute[] = [
  defineRoute({
    method: 'get',
    path: '/api/v1/markets/{market_id}/trades',
    access: 'public',
    tag: TAG,
    summary: 'The public trade tape of a market, newest first',
    description:
      'Newest first: by seq descending and, within one command, in reverse order of execution. `before=<next>` continues with older ' +
      'trades. No trader ids. The tape is kept across resets and starts afresh when the market is deleted and created again.',
    params: MarketIdParams,
    query: z.object(PageQuery),
    success: { status: 200, description: 'a page of trades', schema: TradesPage },
    errors: ['history_unavailable', 'invalid_market', 'market_not_configured', 'invalid_limit', 'invalid_cursor'],
    handle: (call) => {
      const state = call.context.service.state;
      knownMarket(state, call.params.market_id);
      const limit = pageLimit(call.query.limit);
      const from = call.query.before === undefined ? null : decodeCursor('trades', call.query.before, ['number', 'number']);
      return then(call.context.history.tapePage(call.params.market_id, from === null ? null : { seq: from[0] as number, n: from[1] as number }, limit), (page) => {
        const last = page.items[page.items.length - 1];
        return { trades: page.items.map(tradeView), next: page.more && last !== undefined ? encodeCursor('trades', [last.seq, last.n]) : null };
      });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/markets/{market_id}/candles',
    access: 'public',
    tag: TAG,
    summary: 'OHLCV candles of a market from its trades, oldest first',
    description:
      'Buckets aligned to the interval in UTC; empty buckets are left out. `from` is inclusive and `to` exclusive; without them, the 100 ' +
      `buckets ending now. A range wider than ${MAX_CANDLES} buckets is 400 invalid_range. Volume is the traded quantity.`,
    params: MarketIdParams,
    query: CandlesQuery,
    success: { status: 200, description: 'the candles', schema: CandlesResponse },
    errors: ['history_unavailable', 'invalid_market', 'market_not_configured', 'invalid_query', 'invalid_range'],
    handle: (call) => {
      const state = call.context.service.state;
      knownMarket(state, call.params.market_id);
      const interval = call.query.interval ?? '1m';
      const width = CANDLE_INTERVALS[interval] * 1_000_000;
      let to = call.query.to === undefined ? undefined : time(call.query.to, 'to');
      let from = call.query.from === undefined ? undefined : time(call.query.from, 'from');
      if (to === undefined) to = from === undefined ? (Math.floor(timeMicros(call.context.clock.now()) / width) + 1) * width : from + 100 * width;
      if (from === undefined) from = to - 100 * width;
      if (from >= to) throw new DomainError('invalid_range', 'from must be before to');
      if (Math.ceil((to - Math.floor(from / width) * width) / width) > MAX_CANDLES) throw new DomainError('invalid_range', `the range spans more than ${MAX_CANDLES} ${interval} buckets`);
      return then(call.context.history.candles(call.params.market_id, interval, from, to), (list) => ({ candles: list }));
    },
  }),
];
