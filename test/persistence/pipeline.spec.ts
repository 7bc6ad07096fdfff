// The pipelined replay and recovery (src/server/persistence/pipeline/): with small chunks and worker
// threads, long logs cross many chunk boundaries. The result must equal the live state, every chain
// link must still be checked (a fault anywhere, at a boundary too, is named by its seq as the
// sequential verifier names it), and logs of both schema versions read as before.
import { expect } from 'chai';
import fc from 'fast-check';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { finished } from 'node:stream/promises';
import { Exchange } from '../../src/commands/exchange.ts';
import { canonicalJson } from '../../src/events/canonical.ts';
import type { EventLog } from '../../src/events/event-log.ts';
import { chainHash, GENESIS_HASH, sha256Hex } from '../../src/events/hash.ts';
import type { ExchangeEvent } from '../../src/events/types.ts';
import { stateHash } from '../../src/projections/state-hash.ts';
import { legacyStateHash } from '../../src/projections/history/legacy-state-hash.ts';
import { createLogger } from '../../src/server/logger.ts';
import { copyEscape, encodeEventRow, EVENT_COLUMNS } from '../../src/server/persistence/postgres/copy-text.ts';
import { migrate } from '../../src/server/persistence/postgres/migrator.ts';
import { LogIntegrityError, recoverExchange } from '../../src/server/persistence/postgres/recovery.ts';
import { processedChunks } from '../../src/server/persistence/pipeline/chunk-pipeline.ts';
import { processChunk } from '../../src/server/persistence/pipeline/chunk-work.ts';
import { wellFormedEvent } from '../../src/server/persistence/pipeline/well-formed-event.ts';
import { compiledEventCheck } from '../../src/server/persistence/pipeline/compiled-event-check.ts';
import { parseEvent } from '../../src/events/event-schema.ts';
import { fixturePath, FIXTURES, type Expected } from '../../replay/fixtures.ts';
import { rebuild } from '../../replay/rebuild.ts';
import { SessionGenerator } from '../../replay/session-generator.ts';
import { LogFault } from '../../replay/verify.ts';
import { createDatabase, dropDatabase, requirePostgres } from '../support/postgres.ts';

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

const SMALL = { workers: 2, chunkBytes: 4096 };

describe('pipelined replay and recovery', function () {
  this.timeout(60_000);
  const log = new ChainingLog();
  const generator = new SessionGenerator({ seed: 21, commands: 12_000, maxEvents: 3000, traders: 12, markets: ['BTC-USD', 'ETH-USD'] }, new Exchange({ log }));
  generator.generate();
  const live = stateHash(generator.exchange.state);
  const lines = log.rows.map(({ event, hash }) => canonicalJson({ ...event, hash }));
  const dir = mkdtempSync(join(tmpdir(), 'pipeline-test-'));
  const file = (name: string, content: string[]): string => {
    const path = join(dir, `${name}.ndjson`);
    writeFileSync(path, content.join('\n') + '\n');
    return path;
  };
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('replays a long NDJSON log across many chunks to the live state hash, every link verified', async () => {
    const { exchange, verifier } = await rebuild({ file: file('whole', lines), quiet: true, ...SMALL });
    expect(exchange.seq).to.equal(log.rows.length);
    expect(stateHash(exchange.state)).to.equal(live);
    expect(verifier.fullyHashed).to.equal(true);
    expect(verifier.headHash).to.equal(log.previous);
  });

  it('with its default sizes, checks the shapes of a log of up to 256 KiB on the calling thread and leaves a longer one\'s to the caller, NDJSON in chunks under V8\'s large-object size', async () => {
    const read = async (text: string, format: 'copy' | 'ndjson'): Promise<{ validated: boolean[]; sizes: number[] }> => {
      const bytes = new TextEncoder().encode(text);
      async function* pieces(): AsyncGenerator<Uint8Array> {
        for (let at = 0; at < bytes.length; at += 16_384) yield bytes.subarray(at, at + 16_384);
      }
      const validated: boolean[] = [];
      const sizes: number[] = [];
      for await (const chunk of processedChunks(pieces(), { format, startHash: GENESIS_HASH, validate: true })) {
        expect(chunk.ok).to.equal(true);
        validated.push(chunk.validated);
        sizes.push(chunk.bytes.length);
      }
      return { validated, sizes };
    };
    // COPY rows (as COPY (select seq, hash, canonical ...) TO STDOUT writes them): the chunks of a short
    // log come back validated (zod, on the calling thread); a longer log's do not, whether a worker
    // framed them or the calling thread did while the workers started (the caller checks their shapes).
    const rows = log.rows.map(({ event, hash }) => `${event.seq}\t${hash}\t${copyEscape(canonicalJson(event))}\n`);
    let short = '';
    for (const row of rows) {
      if (short.length + row.length > 200 * 1024) break;
      short += row;
    }
    expect(short.length).to.be.greaterThan(128 * 1024);
    const few = await read(short, 'copy');
    expect(few.validated).to.deep.equal([true]);
    const whole = rows.join('');
    expect(whole.length).to.be.greaterThan(768 * 1024);
    const many = await read(whole, 'copy');
    expect(many.validated.every((v) => !v)).to.equal(true);
    expect(many.sizes.length).to.be.greaterThan(2);
    expect(Math.max(...many.sizes)).to.be.at.most(256 * 1024);
    // NDJSON: a short log is several chunks, all on the calling thread; a long one's are at most 64 KiB.
    let shortLines = '';
    for (const line of lines) {
      if (shortLines.length + line.length + 1 > 200 * 1024) break;
      shortLines += line + '\n';
    }
    const fewLines = await read(shortLines, 'ndjson');
    expect(fewLines.validated.length).to.be.greaterThan(1);
    expect(fewLines.validated.every((v) => v)).to.equal(true);
    const manyLines = await read(lines.join('\n') + '\n', 'ndjson');
    expect(manyLines.validated.every((v) => !v)).to.equal(true);
    expect(Math.max(...manyLines.sizes)).to.be.at.most(64 * 1024);
  });

  it('processes the chunks on the calling thread while the workers start, then through them: in order, every link checked', async () => {
    // A long log whose source pauses once past the short-log size: by then the workers have been asked
    // to start; the chunks before the pause cannot wait for them, the ones after find them ready.
    const bytes = new TextEncoder().encode(lines.join('\n') + '\n');
    expect(bytes.length).to.be.greaterThan(768 * 1024);
    async function* pieces(): AsyncGenerator<Uint8Array> {
      for (let at = 0; at < bytes.length; at += 16_384) {
        if (at === 512 * 1024) await new Promise((resolve) => setTimeout(resolve, 1000));
        yield bytes.subarray(at, at + 16_384);
      }
    }
    const byWorker: boolean[] = [];
    let prev = GENESIS_HASH;
    let events = 0;
    for await (const chunk of processedChunks(pieces(), { format: 'ndjson', startHash: GENESIS_HASH, validate: true })) {
      expect(chunk.ok).to.equal(true);
      expect(chunk.validated).to.equal(false);
      expect(chunk.prevHash).to.equal(prev);
      prev = chunk.lastHash;
      events += chunk.count;
      byWorker.push(chunk.byWorker);
    }
    expect(events).to.equal(log.rows.length);
    expect(prev).to.equal(log.previous);
    const first = byWorker.indexOf(true);
    expect(first, 'the first chunk is not left waiting for a worker').to.be.greaterThan(0);
    expect(byWorker.slice(first).every((w) => w), 'once a worker is ready, every later chunk goes through the workers').to.equal(true);
  });

  it('stops at --until-seq or --until-time inside a chunk exactly, the verifier\'s head at the last event folded', async () => {
    const until = 1234;
    const path = file('until', lines);
    const untilTime = (log.rows[until - 1] as { event: ExchangeEvent }).event.time;
    const last = log.rows.findLastIndex(({ event }) => event.time <= untilTime) + 1;
    for (const sizes of [SMALL, { workers: 1, chunkBytes: 1 << 30 }, {}]) {
      for (const [stop, seq] of [[{ untilSeq: until }, until], [{ untilTime }, last]] as const) {
        const { exchange, verifier, stoppedEarly } = await rebuild({ file: path, quiet: true, ...stop, ...sizes });
        expect(stoppedEarly).to.equal(true);
        expect(exchange.seq).to.equal(seq);
        // What `replay verify --until-seq` prints: the head of the events it folded, not of its chunk.
        expect(verifier.seq).to.equal(seq);
        expect(verifier.headHash).to.equal((log.rows[seq - 1] as { hash: string }).hash);
      }
    }
  });

  it('reads a line that starts with a byte-order mark as the sequential reader does (not JSON), wherever the chunks start', async () => {
    // TextDecoder drops a BOM at the start of what it decodes: a chunk starting with that line would
    // have taken it, though the line is not JSON.
    const { chunk } = await (async () => {
      let at = 0;
      for await (const c of processedChunks((async function* () {
        yield Buffer.from(lines.join('\n') + '\n');
      })(), { format: 'ndjson', startHash: GENESIS_HASH, validate: true, ...SMALL })) {
        if (at > 0 && c.count > 0) return { chunk: { firstLine: at + 1 } };
        at += c.lines;
      }
      throw new Error('one chunk only');
    })();
    for (const line of [1, chunk.firstLine, 2000]) {
      const marked = lines.map((l, i) => (i === line - 1 ? '\uFEFF' + l : l));
      const path = file(`bom-${line}`, marked);
      const faults: unknown[] = [];
      for (const sizes of [SMALL, { workers: 1, chunkBytes: 1 << 30 }, { chunkBytes: (chunk.firstLine === line ? 4096 : 8192) }]) {
        await rebuild({ file: path, quiet: true, ...sizes }).then(() => faults.push(null), (err: unknown) => faults.push(err));
      }
      for (const err of faults) {
        expect(err).to.be.instanceOf(LogFault);
        expect((err as LogFault).seq).to.equal(line);
        expect((err as Error).message).to.match(new RegExp(`line ${line} is not JSON`));
      }
    }
  });

  it('hands every chunk back with the hash its first line chains from, so boundaries are checked too', async () => {
    async function* bytes() {
      yield Buffer.from(lines.join('\n') + '\n');
    }
    let previous = GENESIS_HASH;
    let chunks = 0;
    for await (const chunk of processedChunks(bytes(), { format: 'ndjson', startHash: GENESIS_HASH, validate: true, ...SMALL })) {
      expect(chunk.ok).to.equal(true);
      expect(chunk.prevHash).to.equal(previous);
      previous = chunk.lastHash;
      chunks++;
    }
    expect(chunks).to.be.greaterThan(50);
    expect(previous).to.equal(log.previous);
  });

  const faults: [string, (l: string[]) => string[], number, RegExp][] = [
    ['a flipped character of a stored hash', (l) => l.map((x, i) => (i === 1999 ? x.replace(/"hash":"(.)/, (_, c: string) => `"hash":"${c === 'a' ? 'b' : 'a'}`) : x)), 2000, /hash does not match/],
    ['a changed time, the hash left alone', (l) => l.map((x, i) => (i === 1499 ? x.replace(/"time":"/, '"time":"9') : x)), 1500, /hash|time/],
    ['an event deleted', (l) => l.filter((_, i) => i !== 2500), 2501, /missing/],
    ['an event whose data is malformed but re-chained', (l) => rechain(l, 1700, (e) => ({ ...e, data: { nonsense: true } })), 1700, /malformed/],
    // The workers take lines apart without parsing them; a line whose braces balance but whose grammar
    // does not (a trailing comma) must still be named, though its chain links all hold.
    ['a line that is not JSON, its braces balanced, re-chained', (l) => rechainText(l, 1800, (text) => text.replace(/}$/, ',}')), 1800, /line 1800 is not JSON/],
  ];
  for (const [name, change, seq, message] of faults) {
    it(`names the first bad seq: ${name}`, async () => {
      let error: unknown = null;
      await rebuild({ file: file(name.replace(/\W+/g, '-'), change(lines)), quiet: true, ...SMALL }).catch((err: unknown) => (error = err));
      expect(error).to.be.instanceOf(LogFault);
      expect((error as LogFault).seq).to.equal(seq);
      expect((error as Error).message).to.match(message);
    });
  }

  it('a line with two top-level hash members, re-chained, folds the same through one chunk and many', async () => {
    // JSON.parse keeps the last of duplicate members. The hashed text keeps the first: whichever path
    // reads the log must check (and fold) the same thing, so the fast paths hand such a line to the
    // sequential reader, as a one-chunk log does too.
    let hash = GENESIS_HASH;
    const doubled = lines.map((line, i) => {
      const { hash: _stored, ...event } = JSON.parse(line) as Record<string, unknown>;
      let text = canonicalJson(event);
      if (i === 1200) text = text.replace(',"seq":', ',"hash":"not-a-hash","seq":');
      hash = sha256Hex(hash + text);
      return i === 1200 ? text.replace(',"seq":', `,"hash":"${hash}","seq":`) : canonicalJson({ ...event, hash });
    });
    expect(doubled[1200]).to.match(/"hash":"not-a-hash","hash":"[0-9a-f]{64}"/);
    const path = file('doubled-hash', doubled);
    const many = await rebuild({ file: path, quiet: true, ...SMALL });
    const one = await rebuild({ file: path, quiet: true, workers: 1, chunkBytes: 1 << 30 });
    expect(many.exchange.seq).to.equal(log.rows.length);
    expect(stateHash(one.exchange.state)).to.equal(stateHash(many.exchange.state));
    expect(stateHash(many.exchange.state)).to.equal(live);
    // The framing of a one-chunk log does not vouch for that line: what it would fold has a member no
    // event has.
    const chunk = processChunk({ id: 0, format: 'ndjson', bytes: new TextEncoder().encode(doubled.join('\n') + '\n'), prev: GENESIS_HASH, context: null }, wellFormedEvent);
    expect(chunk.ok).to.equal(false);
  });

  it('an event the compiled check refuses but zod accepts (an id of astral characters) is read again with zod and folded', async () => {
    // 100 emoji: 200 UTF-16 units, 100 code points. The id limit is 128, counted in code points by zod
    // and in units by the compiled check, which is the stricter: its chunk must fall back, not fail.
    const at = log.rows.findIndex(({ event }) => event.type === 'AdminMessagePosted');
    expect(at).to.be.greaterThan(0);
    const seq = (log.rows[at] as { event: ExchangeEvent }).event.seq;
    const changed = rechain(lines, seq, (e) => ({ ...e, data: { ...(e['data'] as object), message_id: '😀'.repeat(100) } }));
    const event = JSON.parse(changed[at] as string) as Record<string, unknown>;
    delete event['hash'];
    expect(parseEvent(event).ok).to.equal(true);
    expect(compiledEventCheck(event)).to.equal(false);
    const path = file('astral-id', changed);
    const many = await rebuild({ file: path, quiet: true, ...SMALL });
    const one = await rebuild({ file: path, quiet: true, workers: 1, chunkBytes: 1 << 30 });
    expect(many.exchange.seq).to.equal(log.rows.length);
    expect(many.verifier.fullyHashed).to.equal(true);
    expect(stateHash(many.exchange.state)).to.equal(stateHash(one.exchange.state));
  });

  it('reads the recorded logs of both schema versions to their recorded state hashes', async () => {
    for (const name of Object.keys(FIXTURES)) {
      const want = JSON.parse(readFileSync(fixturePath(name, 'expected.json'), 'utf8')) as Expected;
      const { exchange, history, verifier } = await rebuild({ file: fixturePath(name, 'ndjson'), quiet: true, workers: 2, chunkBytes: 2048 });
      expect(stateHash(exchange.state, verifier.headHash), name).to.equal(want.state_hash_v3);
      expect(legacyStateHash(exchange.state, history), name).to.equal(want.state_hash);
    }
  });

  it('cuts a source in any pieces into chunks of whole lines that together are the source, while reusing its buffers', async () => {
    // Chunk buffers go to a worker, come back and are reused once the next result is asked for: every
    // chunk must still hold exactly its bytes when it is handed over, whatever the pieces the source
    // arrives in (one line over many pieces, many lines in one, lines longer than a chunk).
    const chunkBytes = 512;
    const line = fc.oneof(fc.string({ maxLength: 80 }), fc.string({ minLength: 500, maxLength: 1400 })).map((t) => t.replace(/\n/g, ' '));
    await fc.assert(
      fc.asyncProperty(fc.array(line, { minLength: 1, maxLength: 60 }), fc.array(fc.integer({ min: 1, max: 700 }), { minLength: 1, maxLength: 20 }), fc.boolean(), async (lines, cuts, lastNewline) => {
        const source = Buffer.from(lines.join('\n') + (lastNewline ? '\n' : ''));
        async function* pieces() {
          let at = 0;
          for (let i = 0; at < source.length; i++) {
            const n = cuts[i % cuts.length] as number;
            yield Buffer.from(source.subarray(at, at + n));
            at += n;
          }
        }
        const seen: Buffer[] = [];
        for await (const chunk of processedChunks(pieces(), { format: 'ndjson', startHash: GENESIS_HASH, validate: false, workers: 2, chunkBytes })) {
          const bytes = Buffer.from(chunk.bytes);
          seen.push(bytes);
          // Longer than chunkBytes only as one long line.
          if (bytes.length > chunkBytes) expect(bytes.subarray(0, bytes.length - 1).indexOf(10)).to.equal(-1);
        }
        const joined = Buffer.concat(seen);
        expect(joined.equals(source)).to.equal(true);
        // Every chunk but the last ends at a line's end.
        for (const chunk of seen.slice(0, -1)) expect(chunk[chunk.length - 1]).to.equal(10);
      }),
      { numRuns: 60 },
    );
  });

  describe('recovery from PostgreSQL', function () {
    let url: string;
    before(async function () {
      await requirePostgres(this);
      url = await createDatabase('exchange_pipeline');
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await migrate(client);
        const copy = client.query(copyFrom(`copy events (${EVENT_COLUMNS}) from stdin`));
        copy.end(log.rows.map(({ event, hash }) => encodeEventRow(event, hash)).join(''));
        await finished(copy);
      } finally {
        await client.end();
      }
    });
    after(async () => {
      if (url !== undefined) await dropDatabase(url);
    });

    it('folds a long log across many chunks to the live state hash and head', async () => {
      const pool = new pg.Pool({ connectionString: url, max: 2 });
      try {
        const exchange = new Exchange();
        const head = await recoverExchange(pool, exchange, createLogger('silent'), { useSnapshots: false, ...SMALL });
        expect(head.seq).to.equal(log.rows.length);
        expect(head.hash).to.equal(log.previous);
        expect(stateHash(exchange.state)).to.equal(live);
      } finally {
        await pool.end();
      }
    });

    it('refuses a log whose last row\'s seq column was changed (its event and hash left alone)', async () => {
      const last = log.rows.length;
      const alter = async (from: number, to: number): Promise<void> => {
        const admin = new pg.Client({ connectionString: url });
        await admin.connect();
        try {
          await admin.query(`set session_replication_role = replica; update events set seq = ${to} where seq = ${from}`);
        } finally {
          await admin.end();
        }
      };
      await alter(last, last + 1000);
      const pool = new pg.Pool({ connectionString: url, max: 2 });
      try {
        // Chunks of one row each too: the altered row then starts its chunk, held to its event by the caller.
        for (const sizes of [SMALL, { workers: 1, chunkBytes: 1 << 30 }, { workers: 1, chunkBytes: 64 }]) {
          let error: unknown = null;
          await recoverExchange(pool, new Exchange(), createLogger('silent'), { useSnapshots: false, ...sizes }).catch((err: unknown) => (error = err));
          expect(error, JSON.stringify(sizes)).to.be.instanceOf(LogIntegrityError);
          expect((error as Error).message).to.match(new RegExp(`row of seq ${last + 1000} holds an event with seq ${last}`));
          // The replay tool reading the same database names it too.
          let fault: unknown = null;
          await rebuild({ database: url, quiet: true, ...sizes }).catch((err: unknown) => (fault = err));
          expect(fault).to.be.instanceOf(LogFault);
          expect((fault as LogFault).seq).to.equal(last);
          expect((fault as Error).message).to.match(/malformed stored row/);
        }
      } finally {
        await pool.end();
        await alter(last + 1000, last);
      }
    });

    it('names the first altered seq in the middle of the log', async () => {
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      try {
        await admin.query(`set session_replication_role = replica; update events set canonical = replace(canonical, '"seq":2222,', '"seq":2222, ') where seq = 2222`);
      } finally {
        await admin.end();
      }
      const pool = new pg.Pool({ connectionString: url, max: 2 });
      try {
        let error: unknown = null;
        await recoverExchange(pool, new Exchange(), createLogger('silent'), { useSnapshots: false, ...SMALL }).catch((err: unknown) => (error = err));
        expect(error).to.be.instanceOf(LogIntegrityError);
        expect((error as Error).message).to.match(/hash chain is broken at seq 2222/);
      } finally {
        await pool.end();
      }
    });
  });
});

/** The lines re-chained after the text of one seq's event is changed as text (into something not JSON, say). */
function rechainText(lines: string[], seq: number, change: (text: string) => string): string[] {
  let hash = GENESIS_HASH;
  return lines.map((line) => {
    const { hash: _stored, ...event } = JSON.parse(line) as Record<string, unknown>;
    let text = canonicalJson(event);
    if ((event['seq'] as number) === seq) text = change(text);
    hash = sha256Hex(hash + text);
    const at = text.indexOf(',"seq":');
    return text.slice(0, at) + `,"hash":"${hash}"` + text.slice(at);
  });
}

/** Replaces one event and recomputes every hash from it on, as a forger would. */
function rechain(lines: string[], seq: number, change: (e: Record<string, unknown>) => Record<string, unknown>): string[] {
  let hash = GENESIS_HASH;
  return lines.map((line) => {
    const { hash: _stored, ...event } = JSON.parse(line) as Record<string, unknown>;
    const next = (event['seq'] as number) === seq ? change(event) : event;
    hash = chainHash(hash, next as unknown as ExchangeEvent);
    return canonicalJson({ ...next, hash });
  });
}
