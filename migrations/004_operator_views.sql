-- Read-only views over the log for operators who want to ask questions in SQL. They are derived from
-- the events alone (the log is the source of truth), are not updatable (each one expands or
-- aggregates), and never feed back into the service. The service's own figures (PnL, leaderboard)
-- come from its projections; these views are for investigation, reports and audits.

-- Every execution, one row per fill, with both sides.
create view fills as
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
       -- An admin reset clears fills from the service's views; the log keeps them.
       exists (select 1 from events r where r.type = 'TradingReset' and r.seq > e.seq) as cleared_by_reset
from events e
cross join lateral jsonb_array_elements(e.data -> 'fills') with ordinality as f(fill, ord)
where e.type = 'OrderSubmitted';

-- The life of every order: submitted, filled as a maker, amended, canceled. `quantity` is what the
-- event moved (the order's size, a fill, a reduction, the canceled rest); `remaining` is what is left
-- after it.
create view order_events as
select e.seq, e.time::timestamptz as time, 'submitted'::text as kind,
       e.data -> 'order' ->> 'id' as order_id,
       e.data -> 'order' ->> 'trader_id' as trader_id,
       e.data -> 'order' ->> 'market' as market,
       e.data -> 'order' ->> 'side' as side,
       (e.data -> 'order' ->> 'price')::bigint as price,
       (e.data -> 'order' ->> 'quantity')::bigint as quantity,
       (e.data ->> 'remaining')::bigint as remaining
from events e where e.type = 'OrderSubmitted'
union all
select f.seq, f.occurred_at, 'filled', f.maker_order_id, f.maker_trader_id, f.market,
       case f.taker_side when 'BUY' then 'SELL' else 'BUY' end,
       f.price, f.quantity, f.maker_remaining
from fills f
union all
select e.seq, e.time::timestamptz, 'amended',
       e.data ->> 'order_id', e.data ->> 'trader_id', e.data ->> 'market', e.data ->> 'side',
       (e.data ->> 'price')::bigint,
       (e.data ->> 'previous_remaining')::bigint - (e.data ->> 'remaining')::bigint,
       (e.data ->> 'remaining')::bigint
from events e where e.type = 'OrderAmended'
union all
select e.seq, e.time::timestamptz, 'canceled',
       e.data ->> 'order_id', e.data ->> 'trader_id', e.data ->> 'market', e.data ->> 'side',
       (e.data ->> 'price')::bigint,
       (e.data ->> 'remaining')::bigint,
       0
from events e where e.type = 'OrderCanceled';

-- One row per order with its current remaining and status: open, filled, canceled,
-- canceled_at_settlement (settling a market cancels its resting orders) or cleared (an admin reset).
create view orders as
with latest as (
  select distinct on (order_id) order_id, seq, kind, remaining
  from order_events
  order by order_id, seq desc
)
select s.order_id, s.trader_id, s.market, s.side, s.price, s.quantity,
       s.time as created_at, s.seq as submitted_seq,
       l.remaining, l.kind as last_event, l.seq as last_seq,
       case
         when l.kind = 'canceled' then 'canceled'
         when l.remaining = 0 then 'filled'
         when exists (select 1 from events r where r.type = 'TradingReset' and r.seq > l.seq) then 'cleared'
         when exists (select 1 from events m where m.type = 'MarketSettled' and m.seq > l.seq
                        and m.data ->> 'market_id' = s.market) then 'canceled_at_settlement'
         else 'open'
       end as status
from order_events s
join latest l on l.order_id = s.order_id
where s.kind = 'submitted';

-- Net quantity and cash flow per trader and market from the fills that still count: after the last
-- admin reset and after the market's last settlement (which realizes and zeroes positions). PnL and
-- average entry prices are the service's (GET /api/v1/positions); this is the raw trade ledger's view.
create view net_positions as
with last_reset as (
  select coalesce(max(seq), 0) as seq from events where type = 'TradingReset'
),
last_settlement as (
  select data ->> 'market_id' as market, max(seq) as seq from events where type = 'MarketSettled' group by 1
),
legs as (
  select f.seq, f.market, f.taker_trader_id as trader_id,
         case f.taker_side when 'BUY' then f.quantity else -f.quantity end as signed_quantity, f.price
  from fills f
  union all
  select f.seq, f.market, f.maker_trader_id,
         case f.taker_side when 'BUY' then -f.quantity else f.quantity end, f.price
  from fills f
)
select g.trader_id, g.market,
       sum(g.signed_quantity) as net_quantity,
       -- Money paid (negative) or received (positive) for the fills counted.
       sum(-g.signed_quantity::numeric * g.price) as cash_flow,
       count(*) as fills,
       max(g.seq) as last_seq
from legs g
cross join last_reset r
left join last_settlement s on s.market = g.market
where g.seq > r.seq and g.seq > coalesce(s.seq, 0)
group by g.trader_id, g.market;
