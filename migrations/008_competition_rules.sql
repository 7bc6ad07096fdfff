-- The competition rules (docs/api.md, "Competition rules"): fees on fills, and the last use of each API
-- key.
--
-- Each execution's fees, in ten-thousandths of the quote asset (exact integers: a fee has at most four
-- decimals), as the event records them. Rows written before fees existed had none: 0 is what they were.
alter table fill_history
  add column maker_fee_e4 bigint not null default 0,
  add column taker_fee_e4 bigint not null default 0;

-- The operator views show the fees too, in the quote asset (new columns at the end: the views' other
-- columns are unchanged).
create or replace view fills as
select e.seq,
       f.ord::integer - 1 as fill_index,
       f.fill ->> 'fill_id' as fill_id,
       e.time::timestamptz as occurred_at,
       e.data -> 'order' ->> 'market' as market,
       (f.fill ->> 'price')::bigint as price,
       (f.fill ->> 'quantity')::bigint as quantity,
       e.data -> 'order' ->> 'id' as taker_order_id,
       e.data -> 'order' ->> 'trader_id' as taker_trader_id,
       e.data -> 'order' ->> 'side' as taker_side,
       f.fill ->> 'maker_order_id' as maker_order_id,
       f.fill ->> 'maker_trader_id' as maker_trader_id,
       (f.fill ->> 'maker_remaining')::bigint as maker_remaining,
       exists (select 1 from events r where r.type = 'TradingReset' and r.seq > e.seq) as cleared_by_reset,
       coalesce((f.fill ->> 'maker_fee_e4')::numeric, 0) / 10000 as maker_fee,
       coalesce((f.fill ->> 'taker_fee_e4')::numeric, 0) / 10000 as taker_fee
from events_with_data e
cross join lateral jsonb_array_elements(e.data -> 'fills') with ordinality as f(fill, ord)
where e.type = 'OrderSubmitted';

create or replace view net_positions as
with last_reset as (
  select coalesce(max(seq), 0) as seq from events where type = 'TradingReset'
),
last_settlement as (
  select data ->> 'market_id' as market, max(seq) as seq from events_with_data where type = 'MarketSettled' group by 1
),
legs as (
  select f.seq, f.market, f.taker_trader_id as trader_id,
         case f.taker_side when 'BUY' then f.quantity else -f.quantity end as signed_quantity, f.price, f.taker_fee as fee
  from fills f
  union all
  select f.seq, f.market, f.maker_trader_id,
         case f.taker_side when 'BUY' then -f.quantity else f.quantity end, f.price, f.maker_fee
  from fills f
)
select g.trader_id, g.market,
       sum(g.signed_quantity) as net_quantity,
       sum(-g.signed_quantity::numeric * g.price) as cash_flow,
       count(*) as fills,
       max(g.seq) as last_seq,
       -- Fees paid (negative: rebates received) for the fills counted; cash_flow is before them.
       sum(g.fee) as fees
from legs g
cross join last_reset r
left join last_settlement s on s.market = g.market
where g.seq > r.seq and g.seq > coalesce(s.seq, 0)
group by g.trader_id, g.market;

-- When each API key was last used to authenticate (REST or WebSocket). Not in the log: a use is not a
-- change of the exchange's state, and an event per request would grow the hash-chained log with every
-- poll. The service keeps it in memory and writes what changed here every few seconds (a use within
-- a second of the last one recorded is not a change); a restart reads it back.
create table api_key_usage (
  key_id text primary key,
  -- RFC 3339 UTC with microseconds, as every time the API shows.
  last_used_at text not null
);
