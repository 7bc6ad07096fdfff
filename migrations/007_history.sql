-- The history in PostgreSQL: what the exchange did and no longer needs in memory. The service keeps
-- only its live state in memory (docs/architecture.md, "Live state and history"); finished orders, fills
-- (which are also the trade tape) and closed candle minutes are written here by the batch writer, in the
-- same transaction as the events that made them, so the history is always exactly as complete as the
-- log. Operator messages and official standings are read from the events themselves (an index below).
-- These tables are derived from the log and could be rebuilt from it: log_meta.history_complete says
-- whether they hold the history of every stored event; when not (a log written before this migration,
-- or one restored with `replay import`), the next start folds the whole log and writes them.

-- Every order finished (filled, canceled, expired), as it finished: an order never changes again. Reads
-- go by id or by (trader, client order id) and keep only those submitted after the last reset.
create table order_history (
  id text not null,
  trader_id text not null,
  market text not null,
  side text not null,
  -- The limit price; 0 for a market order.
  price bigint not null,
  quantity bigint not null,
  -- Canceled or expired: what was canceled; filled: 0.
  remaining bigint not null,
  status text not null,
  filled bigint not null,
  -- The sum of price * quantity over its fills, as the service computes it (a double).
  notional double precision not null,
  order_type text not null,
  time_in_force text not null,
  self_trade_prevention text not null,
  client_order_id text,
  created_at text not null,
  -- The seq of the event that submitted it, and of the one that finished it (with its time).
  seq bigint not null,
  finished_seq bigint not null,
  finished_at text not null
);
create index order_history_id on order_history (id);
create index order_history_client on order_history (trader_id, client_order_id) where client_order_id is not null;

-- Every execution, one row with both sides: a trader's fills (as taker or maker, read by occurred_at and
-- fill_id as the API lists them, after the last reset) and a market's trade tape (by seq and n, after the
-- market's last deletion). The two texts fills are ordered by compare byte by byte ("C"), as the
-- service compares them, whatever the database's default collation.
create table fill_history (
  seq bigint not null,
  -- The execution's index within its command's fills.
  n integer not null,
  fill_id text collate "C" not null,
  market text not null,
  price bigint not null,
  quantity bigint not null,
  taker_side text not null,
  taker_order_id text not null,
  taker_trader_id text not null,
  maker_order_id text not null,
  maker_trader_id text not null,
  occurred_at text collate "C" not null
);
create index fill_history_taker on fill_history (taker_trader_id, occurred_at, fill_id);
create index fill_history_maker on fill_history (maker_trader_id, occurred_at, fill_id);
create index fill_history_tape on fill_history (market, seq, n);

-- Each market's trades by minute, written when a trade of a later minute closes the minute (the current
-- minute is live state). Candles of every interval are sums of these, and of single trades where a range
-- starts or ends inside a minute (first_seq and last_seq find them in fill_history).
create table candle_minutes (
  market text not null,
  -- The minute's start, microseconds since 1970.
  start_us bigint not null,
  open bigint not null,
  high bigint not null,
  low bigint not null,
  close bigint not null,
  volume double precision not null,
  trades integer not null,
  first_seq bigint not null,
  last_seq bigint not null,
  -- The seq of the event whose trade closed it (the minute's row is written with that event).
  closed_seq bigint not null
);
create index candle_minutes_range on candle_minutes (market, start_us);

-- Operator messages (posted, and settlement announcements) and frozen standings are read from their events.
create index events_messages on events (seq) where type in ('AdminMessagePosted', 'MarketSettled');
create index events_standings on events (seq) where type = 'LeaderboardFrozen';

-- Whether the tables above hold the history of every stored event: true for a new log, false for one
-- that already had events (the service folds it once at its next start and writes them).
alter table log_meta add column history_complete boolean not null default true;
update log_meta set history_complete = not exists (select 1 from events);

-- Snapshots of format 3 hold the live state only, as lines (a head, then parts of at most a thousand
-- items; src/projections/snapshot.ts), stored in pieces of about a megabyte of text each, gzipped, so
-- that no one value in the database nor one string in the service ever holds a whole snapshot. Their
-- `state` is empty and `state_sha256` is the digest of the pieces' text, in order.
create table snapshot_pieces (
  seq bigint not null references snapshots (seq) on delete cascade,
  piece integer not null,
  -- The piece's text (lines joined by newlines; a line may continue in the next piece), gzipped.
  body bytea not null,
  primary key (seq, piece)
);
