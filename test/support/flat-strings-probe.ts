// Run by test/server/flat-strings.spec.ts in a child process started with --allow-natives-syntax: prints,
// as JSON, whether each string the exchange builds for clients is flat (%StringIsFlat), by name.
import { Exchange } from '../../src/commands/exchange.ts';
import { fillId } from '../../src/commands/fill-ids.ts';
import { GTC_LIMIT } from '../../src/commands/order-terms.ts';
import type { Command } from '../../src/commands/types.ts';
import { timeText } from '../../src/events/time-code.ts';
import { submitReply } from '../../src/projections/order-replies.ts';
import { AdmissionClock, flatUuid } from '../../src/server/clock.ts';
import { submitAckFrame, withRateLimitRemaining } from '../../src/server/ws/frames.ts';

// Flat is not enough: a rope flattened in place (by trim, say) is flat but still a ConsString, which
// JSON.stringify's fast path refuses as it refuses any rope. What it takes is a sequential string (the
// map of one that join made) or an internalized one.
const sequentialReference = ['seq-one-byte-', 'reference'].join('');
const isFlat = new Function('s', 'r', 'return %StringIsFlat(s) && (%HaveSameMap(s, r) || %IsInternalizedString(s))') as (s: string, r: string) => boolean;
const clock = new AdmissionClock();
const exchange = new Exchange();
const run = (build: (s: ReturnType<AdmissionClock['stamp']>) => Command): ReturnType<Exchange['execute']> => exchange.execute(build(clock.stamp()));
const traders = [1, 2].map(() => flatUuid());
for (const [i, trader_id] of traders.entries()) run((s) => ({ type: 'ProvisionTrader', time: s.time, username: `probe${i}`, trader_id, api_key_hash: `h${i}` }) as Command);
run((s) => ({ type: 'UpsertMarket', time: s.time, market: { market_id: 'P-USD', base_asset: 'P', quote_asset: 'USD', tick_size: 1, min_order_quantity: 1, reference_price: 100, enabled: true } }) as Command);
run((s) => ({ type: 'StartTrading', time: s.time }) as Command);
for (const trader_id of traders) run((s) => ({ type: 'SubmitOrder', time: s.time, trader_id, market: 'P-USD', side: 'SELL', price: 100, quantity: 1, ...GTC_LIMIT, client_order_id: null, order_id: s.uuid(), fill_id_seed: s.uuid() }) as Command);
const taker = run((s) => ({ type: 'SubmitOrder', time: s.time, trader_id: traders[0] as string, market: 'P-USD', side: 'BUY', price: 100, quantity: 2, ...GTC_LIMIT, client_order_id: null, order_id: s.uuid(), fill_id_seed: s.uuid() }) as Command);
if (taker.type !== 'OrderSubmitted') throw new Error('probe: the taker did not trade');
const reply = submitReply(exchange.state, taker);
const strings: Record<string, string> = {
  'a stamp uuid': clock.stamp().uuid(),
  'a stamp time': clock.stamp().time,
  timeText: timeText(1_795_680_000_123_456),
  'fillId 1': fillId(flatUuid(), 1),
  'an order view id': reply.order.id,
  'an order view created_at': reply.order.created_at,
  'a fill view fill_id (the second fill)': reply.fills[1]?.fill_id ?? '',
  'a fill view occurred_at': reply.fills[1]?.occurred_at ?? '',
  'an ack frame with its rate_limit_remaining': withRateLimitRemaining(submitAckFrame('r1', reply), 7),
};
process.stdout.write(JSON.stringify(Object.fromEntries(Object.entries(strings).map(([k, v]) => [k, v !== '' && isFlat(v, sequentialReference)]))));
