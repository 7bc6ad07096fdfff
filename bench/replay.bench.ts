// Replay speed for a long log: events/s read, verified (shape, seq, hash chain) and folded, from an
// NDJSON file and from PostgreSQL. References in the same run: reading the same file and JSON-parsing
// each line (the floor any NDJSON replay pays), and streaming the same rows out of PostgreSQL.
//
//   npm run bench:replay                 (1,000,000 events)
//   BENCH_EVENTS=200000 npm run bench:replay
//   BENCH_QUICK=1 npm run bench:replay   (5,000 events, every part: a check that it runs, bench/quick.ts)
//
// The parent generates the log and loads the database; a child process measures, holding only what it
// measures.
import { createWriteStream, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, createReadStream } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { Exchange } from '../src/commands/exchange.ts';
import { canonicalJson } from '../src/events/canonical.ts';
import { chainHash, GENESIS_HASH } from '../src/events/hash.ts';
import type { ExchangeEvent } from '../src/events/types.ts';
import type { EventLog } from '../src/events/event-log.ts';
import { encodeEventRow, EVENT_COLUMNS } from '../src/server/persistence/postgres/copy-text.ts';
import { streamStoredEvents } from '../src/server/persistence/postgres/event-stream.ts';
import { rebuild, REPLAY_STATE } from '../replay/rebuild.ts';
import { HistoryIndex } from '../src/projections/history/history-index.ts';
import { SessionGenerator } from '../replay/session-generator.ts';
import { stateHash } from '../src/projections/state-hash.ts';
import { setting } from './quick.ts';

const EVENTS = setting('BENCH_EVENTS', 1_000_000, 5_000);
const BASE_URL = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Collects the generated events with their chain hashes, without keeping them in memory twice. */
class ChainingLog implements EventLog {
  headSeq = 0;
  previous = GENESIS_HASH;
  readonly rows: { event: ExchangeEvent; hash: string }[] = [];
  append(event: ExchangeEvent): void {
    this.headSeq = event.seq;
    this.previous = chainHash(this.previous, event);
    this.rows.push({ event, hash: this.previous });
  }
}

function rate(n: number, ms: number): string {
  return `${Math.round((n / ms) * 1000).toLocaleString('en-US')} events/s`;
}

async function main(): Promise<void> {
  console.log(`replay benchmark: node ${process.version}, generating a log of ~${EVENTS.toLocaleString('en-US')} events`);
  const log = new ChainingLog();
  const generator = new SessionGenerator({ seed: 9, commands: EVENTS * 4, maxEvents: EVENTS, traders: 40, markets: ['BTC-USD', 'ETH-USD', 'SOL-USD', 'ADA-USD', 'XRP-USD'] }, new Exchange({ log }));
  generator.generate();
  const rows = log.rows.slice(0, EVENTS);
  // The live state's hash holds only when the file has every event the generator made.
  const expectedHash = rows.length === log.rows.length ? stateHash(generator.exchange.state) : '-';
  console.log(`generated ${rows.length.toLocaleString('en-US')} events`);

  const dir = mkdtempSync(join(tmpdir(), 'replay-bench-'));
  const file = join(dir, 'log.ndjson');
  const out = createWriteStream(file);
  let chunk = '';
  for (const { event, hash } of rows) {
    chunk += canonicalJson({ ...event, hash }) + '\n';
    if (chunk.length > 1 << 20) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  out.end(chunk);
  await once(out, 'finish');
  console.log(`NDJSON: ${(statSync(file).size / 1e6).toFixed(0)} MB`);

  // PostgreSQL: the same rows in a fresh database.
  const admin = new pg.Client({ connectionString: BASE_URL });
  let database = '-';
  const name = `replay_bench_${process.pid}`;
  try {
    await admin.connect();
    await admin.query(`drop database if exists ${name}`);
    await admin.query(`create database ${name}`);
    const url = new URL(BASE_URL);
    url.pathname = `/${name}`;
    database = url.toString();
    const pool = new pg.Pool({ connectionString: database, max: 2 });
    const migrations = new URL('../migrations/', import.meta.url).pathname;
    for (const f of readdirSync(migrations).filter((x) => x.endsWith('.sql')).sort()) await pool.query(readFileSync(join(migrations, f), 'utf8'));
    const client = await pool.connect();
    const copy = client.query(copyFrom(`copy events (${EVENT_COLUMNS}) from stdin`));
    await pipeline(Readable.from((function* () {
      let buf = '';
      for (const { event, hash } of rows) {
        buf += encodeEventRow(event, hash);
        if (buf.length > 1 << 20) {
          yield buf;
          buf = '';
        }
      }
      yield buf;
    })()), copy);
    client.release();
    await pool.end();
  } catch (err) {
    console.log(`from PostgreSQL: skipped (${err instanceof Error ? err.message : String(err)})`);
  }
  try {
    // The measurements run in a process of their own that holds nothing but what it measures: the
    // generator's million events kept in this heap would make every collection there slower.
    const child = spawnSync(process.execPath, ['--max-old-space-size=8192', new URL(import.meta.url).pathname, '--measure', file, database, expectedHash], { stdio: 'inherit', env: process.env });
    if (child.status !== 0) process.exitCode = child.status ?? 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
    if (database !== '-') await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end().catch(() => {});
  }
}

/** The measurements, in a fresh process: references and replays from the file and the database. */
async function measure(file: string, database: string, expectedHash: string): Promise<void> {
  // Reference: read and JSON.parse every line, nothing else.
  let t = performance.now();
  let parsed = 0;
  for await (const line of createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity })) {
    if (line !== '') {
      JSON.parse(line);
      parsed++;
    }
  }
  const refMs = performance.now() - t;

  // The replay's state is let go of before the floor runs (a function's locals): held, its heap (the
  // whole history of the log) made every collection of the floor's fold slower than the replay's own,
  // and the floor came out slower than the replay.
  const fileMs = await (async () => {
    const started = performance.now();
    const fromFile = await rebuild({ file, quiet: true });
    const ms = performance.now() - started;
    const sameHash = expectedHash === '-' ? null : stateHash(fromFile.exchange.state) === expectedHash;
    console.log(`from NDJSON:     ${rate(fromFile.exchange.seq, ms)} (read+parse reference ${rate(parsed, refMs)}, replay/reference ${(refMs / ms).toFixed(2)})${sameHash === null ? '' : `, state hash ${sameHash ? 'equals' : 'DIFFERS from'} the live run's`}`);
    return ms;
  })();

  // The floor of any replay on this machine: the main thread's own part alone (JSON.parse of each
  // chunk's events as one array, as the pipeline hands them over, and the fold, the state and the
  // history index a replay keeps beside it, as rebuild() folds them; no reading, hashing or shape
  // check). The pipeline moves the rest to worker threads, so replay/floor is how close it comes.
  {
    const arrays: string[] = [];
    let texts: string[] = [];
    let bytes = 0;
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (line === '') continue;
      const { hash: _hash, ...event } = JSON.parse(line) as ExchangeEvent & { hash: string };
      const text = canonicalJson(event);
      texts.push(text);
      bytes += text.length;
      if (bytes >= 256 * 1024) {
        arrays.push(`[${texts.join(',')}]`);
        texts = [];
        bytes = 0;
      }
    }
    if (texts.length > 0) arrays.push(`[${texts.join(',')}]`);
    const floorExchange = new Exchange(REPLAY_STATE);
    new HistoryIndex().follow(floorExchange.state);
    let folded = 0;
    t = performance.now();
    for (const array of arrays) {
      for (const event of JSON.parse(array) as ExchangeEvent[]) floorExchange.fold(event);
    }
    const floorMs = performance.now() - t;
    folded = floorExchange.seq;
    console.log(`main-thread floor (JSON.parse of 256 KiB chunks + fold of the state and the history, in memory): ${rate(folded, floorMs)} (NDJSON replay/floor ${(floorMs / fileMs).toFixed(2)})`);
  }

  if (database === '-') return;
  const pool = new pg.Pool({ connectionString: database, max: 2 });
  t = performance.now();
  let streamed = 0;
  for await (const _row of streamStoredEvents(pool, 0)) streamed++;
  const pgRefMs = performance.now() - t;
  await pool.end();
  t = performance.now();
  const fromPg = await rebuild({ database, quiet: true });
  const pgMs = performance.now() - t;
  console.log(`from PostgreSQL: ${rate(fromPg.exchange.seq, pgMs)} (COPY TO STDOUT + decode reference ${rate(streamed, pgRefMs)}, replay/reference ${(pgRefMs / pgMs).toFixed(2)})`);
}

const at = process.argv.indexOf('--measure');
if (at >= 0) await measure(process.argv[at + 1] as string, process.argv[at + 2] as string, process.argv[at + 3] as string);
else await main();
