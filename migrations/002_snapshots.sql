-- Snapshots of the whole state, so recovery folds only the events after the newest one.
create table snapshots (
  -- The seq of the last event the snapshot includes.
  seq bigint primary key check (seq > 0),
  time text not null,
  -- The JSON of takeSnapshot, exactly as written (text, not jsonb: its SHA-256 is checked on load).
  state text not null,
  state_sha256 text not null check (state_sha256 ~ '^[0-9a-f]{64}$'),
  -- The chain hash of the event at `seq`, so recovery continues verifying the chain from here and can
  -- tell that the snapshot belongs to this log.
  chain_hash text not null check (chain_hash ~ '^[0-9a-f]{64}$'),
  format_version integer not null,
  -- How long takeSnapshot and serializing held the trading thread, for operators.
  blocked_ms double precision not null,
  created_at timestamptz not null default now()
);
