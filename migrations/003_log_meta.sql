-- One row describing the log. The epoch is created with the log and never changes, so book
-- sequences (and WebSocket clients resuming from them) continue across restarts under one epoch.
create table log_meta (
  singleton boolean primary key default true check (singleton),
  epoch uuid not null default gen_random_uuid(),
  created_at timestamptz not null default now()
);
insert into log_meta default values;
