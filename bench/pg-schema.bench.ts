// `npm run bench:pg-schema`: what the events table's layout costs PostgreSQL on the write path, measured
// before choosing one (migration 005 is the choice). The same events, encoded once up front (so only the database's work
// is timed), are COPYed into fresh tables of each layout in transactions of 1,024 rows, as the batch
// writer does. Prints events/s per layout and the ratio to today's layout in the same run.
// BENCH_PG_EVENTS sets how many events (default 300000); BENCH_QUICK=1 (bench/quick.ts) 5,000, every
// layout still measured: a check that it runs.
import os from 'node:os';
import { finished } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { Exchange } from '../src/commands/exchange.ts';
import { isDomainError } from '../src/commands/errors.ts';
import { canonicalJson } from '../src/events/canonical.ts';
import { GENESIS_HASH, sha256Hex } from '../src/events/hash.ts';
import type { ExchangeEvent } from '../src/events/types.ts';
import { AdmissionClock } from '../src/server/clock.ts';
import { copyEscape } from '../src/server/persistence/postgres/copy-text.ts';
import { createDatabase, dropDatabase, postgresUnavailable } from '../test/support/postgres.ts';
import { RandomSession, type Build } from '../test/postgres/support/random-session.ts';
import { setting } from './quick.ts';

const EVENTS = setting('BENCH_PG_EVENTS', 300_000, 5_000);
const BATCH = 1024;

// What the jsonb column of migrations 001-004 received: the data with NUL and lone surrogates as U+FFFD.
function jsonbSafe(json: string): string {
  return json.replace(/\\u0000|\\ud[89a-f][0-9a-f]{2}/g, '\\ufffd');
}
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

interface Encoded {
  readonly seq: number;
  readonly type: string;
  readonly time: string;
  readonly data: string;
  readonly hash: string;
  readonly text: string;
}

interface Layout {
  readonly name: string;
  readonly ddl: string;
  readonly columns: string;
  /** A text row, or a binary tuple (COPY BINARY). */
  readonly text?: (e: Encoded) => string;
  readonly binary?: (e: Encoded) => Buffer;
}

const TRIGGERS = `
create function events_append_only() returns trigger language plpgsql as $$ begin raise exception 'append-only'; end $$;
create trigger events_no_update_or_delete before update or delete on events for each row execute function events_append_only();`;
const PARTIAL = `create index events_resets_and_settlements on events (type, seq) where type in ('TradingReset', 'MarketSettled');`;

function binaryTuple(fields: (Buffer | bigint)[]): Buffer {
  let size = 2;
  for (const f of fields) size += 4 + (typeof f === 'bigint' ? 8 : f.length);
  const out = Buffer.allocUnsafe(size);
  let at = out.writeInt16BE(fields.length, 0);
  for (const f of fields) {
    if (typeof f === 'bigint') {
      at = out.writeInt32BE(8, at);
      at = out.writeBigInt64BE(f, at);
    } else {
      at = out.writeInt32BE(f.length, at);
      at += f.copy(out, at);
    }
  }
  return out;
}

const LAYOUTS: Layout[] = [
  {
    name: 'today: seq pk, type, time, data jsonb, hash text, canonical text',
    ddl: `create table events (seq bigint primary key check (seq > 0), type text not null, time text not null, data jsonb not null, hash text not null, canonical text not null); ${TRIGGERS} ${PARTIAL}`,
    columns: 'seq, type, time, data, hash, canonical',
    text: (e) => `${e.seq}\t${copyEscape(e.type)}\t${copyEscape(e.time)}\t${copyEscape(e.data)}\t${e.hash}\t${copyEscape(e.text)}\n`,
  },
  {
    name: 'no jsonb: seq pk, type, time, hash text, canonical text',
    ddl: `create table events (seq bigint primary key check (seq > 0), type text not null, time text not null, hash text not null, canonical text not null); ${TRIGGERS} ${PARTIAL}`,
    columns: 'seq, type, time, hash, canonical',
    text: (e) => `${e.seq}\t${copyEscape(e.type)}\t${copyEscape(e.time)}\t${e.hash}\t${copyEscape(e.text)}\n`,
  },
  {
    name: 'no jsonb, no time/type: seq pk, hash text, canonical text',
    ddl: `create table events (seq bigint primary key check (seq > 0), hash text not null, canonical text not null); ${TRIGGERS}`,
    columns: 'seq, hash, canonical',
    text: (e) => `${e.seq}\t${e.hash}\t${copyEscape(e.text)}\n`,
  },
  {
    name: 'no jsonb, hash bytea: seq pk, type, time, hash bytea, canonical text',
    ddl: `create table events (seq bigint primary key check (seq > 0), type text not null, time text not null, hash bytea not null, canonical text not null); ${TRIGGERS} ${PARTIAL}`,
    columns: 'seq, type, time, hash, canonical',
    text: (e) => `${e.seq}\t${copyEscape(e.type)}\t${copyEscape(e.time)}\t\\\\x${e.hash}\t${copyEscape(e.text)}\n`,
  },
  {
    name: 'no jsonb, canonical bytea (UTF-8 bytes, hex in COPY text)',
    ddl: `create table events (seq bigint primary key check (seq > 0), type text not null, time text not null, hash text not null, canonical bytea not null); ${TRIGGERS} ${PARTIAL}`,
    columns: 'seq, type, time, hash, canonical',
    text: (e) => `${e.seq}\t${copyEscape(e.type)}\t${copyEscape(e.time)}\t${e.hash}\t\\\\x${Buffer.from(e.text, 'utf8').toString('hex')}\n`,
  },
  {
    name: 'no jsonb, COPY BINARY: seq pk, type, time, hash text, canonical text',
    ddl: `create table events (seq bigint primary key check (seq > 0), type text not null, time text not null, hash text not null, canonical text not null); ${TRIGGERS} ${PARTIAL}`,
    columns: 'seq, type, time, hash, canonical',
    binary: (e) => binaryTuple([BigInt(e.seq), Buffer.from(e.type), Buffer.from(e.time), Buffer.from(e.hash), Buffer.from(e.text, 'utf8')]),
  },
  {
    name: 'no jsonb, no primary key (exactly-once from the writer alone)',
    ddl: `create table events (seq bigint not null check (seq > 0), type text not null, time text not null, hash text not null, canonical text not null); ${TRIGGERS} ${PARTIAL}`,
    columns: 'seq, type, time, hash, canonical',
    text: (e) => `${e.seq}\t${copyEscape(e.type)}\t${copyEscape(e.time)}\t${e.hash}\t${copyEscape(e.text)}\n`,
  },
];

const BINARY_HEADER = Buffer.concat([Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(8)]);
const BINARY_TRAILER = Buffer.from([0xff, 0xff]);

async function measure(layout: Layout, events: Encoded[]): Promise<number> {
  const url = await createDatabase('bench_pg_schema');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(layout.ddl);
    // Encoded before timing: only the database's part is measured.
    const batches: (string | Buffer)[] = [];
    for (let i = 0; i < events.length; i += BATCH) {
      const slice = events.slice(i, i + BATCH);
      if (layout.binary !== undefined) {
        const tuples = slice.map(layout.binary);
        batches.push(Buffer.concat([BINARY_HEADER, ...tuples, BINARY_TRAILER]));
      } else {
        batches.push(slice.map(layout.text as (e: Encoded) => string).join(''));
      }
    }
    const started = performance.now();
    for (const payload of batches) {
      await client.query('begin');
      const copy = client.query(copyFrom(`copy events (${layout.columns}) from stdin${layout.binary !== undefined ? ' (format binary)' : ''}`));
      copy.end(payload);
      await finished(copy);
      await client.query('commit');
    }
    const seconds = (performance.now() - started) / 1000;
    const size = await client.query<{ size: string }>("select pg_total_relation_size('events') as size");
    console.log(`   ${layout.name}: ${fmt(events.length / seconds)} events/s, table+indexes ${fmt(Number(size.rows[0]?.size) / 2 ** 20)} MiB`);
    return events.length / seconds;
  } finally {
    await client.end();
    await dropDatabase(url);
  }
}

async function main(): Promise<void> {
  const unavailable = await postgresUnavailable();
  if (unavailable !== null) {
    console.log(`bench:pg-schema skipped: ${unavailable}`);
    return;
  }
  console.log(`bench:pg-schema  node ${process.version}, ${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  const exchange = new Exchange();
  const clock = new AdmissionClock();
  const builds = new RandomSession(exchange.state, 7, 40).builds();
  const events: Encoded[] = [];
  let hash = GENESIS_HASH;
  while (events.length < EVENTS) {
    let event: ExchangeEvent;
    try {
      event = exchange.execute((builds.next().value as Build)(clock.stamp()));
    } catch (err) {
      if (!isDomainError(err)) throw err;
      continue;
    }
    const text = canonicalJson(event);
    hash = sha256Hex(hash + text);
    const data = jsonbSafe(text.slice('{"data":'.length, text.lastIndexOf(',"seq":')));
    events.push({ seq: event.seq, type: event.type, time: event.time, data, hash, text });
  }
  console.log(`${fmt(events.length)} events, COPY in transactions of ${BATCH}, rows encoded before timing:`);
  let reference = 0;
  for (const layout of LAYOUTS) {
    const rate = await measure(layout, events);
    if (reference === 0) reference = rate;
    else console.log(`      ${(rate / reference).toFixed(2)}x today's layout`);
  }
}

await main();
