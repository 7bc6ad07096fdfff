-- The append-only event log. One row per accepted command, seq assigned by the service (gap-free from
-- 1), so the primary key is also what makes a retried batch impossible to store twice.
create table events (
  seq bigint primary key check (seq > 0),
  type text not null,
  -- The admission time exactly as recorded (RFC 3339 UTC, microseconds); the views cast it to
  -- timestamptz for operators.
  time text not null,
  -- The event's data for SQL (the operator views). jsonb cannot hold a NUL character or a lone UTF-16
  -- surrogate; in the rare event that has one (a message body, say) they appear here as U+FFFD, and
  -- `canonical` keeps the exact text.
  data jsonb not null,
  -- H(previous hash || canonical), hex; the first event chains from 64 zeros.
  hash text not null,
  -- The event exactly as hashed: the canonical JSON of {seq, time, type, data}. It is the record of
  -- truth: recovery parses it and checks the chain over these very characters, without re-serializing
  -- (which is what lets a restart fold hundreds of thousands of events a second). The columns before
  -- it are copies for querying.
  canonical text not null
);

-- Append-only: history is never edited. (A superuser can still bypass this deliberately, e.g. with
-- session_replication_role = replica; recovery then names the first altered seq.)
create function events_append_only() returns trigger language plpgsql as $$
begin
  raise exception 'the events table is append-only: % is not allowed', tg_op;
end
$$;
create trigger events_no_update_or_delete before update or delete on events
  for each row execute function events_append_only();
create trigger events_no_truncate before truncate on events
  for each statement execute function events_append_only();

-- The operator views look up the (rare) resets and settlements for every row they show. A partial
-- index keeps that cheap without slowing down the inserts of every other event.
create index events_resets_and_settlements on events (type, seq) where type in ('TradingReset', 'MarketSettled');
