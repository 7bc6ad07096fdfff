// GET /api/v1/fills without paging parameters answers every fill since the last reset as one JSON array
// (exchange-service.md), written as it is read (send-json-array.ts): a long history is many writes,
// never one string. In memory and from PostgreSQL, a list of thousands of fills (a megabyte of JSON, many
// times the size of one write) is the same array as its pages put together, and a client that goes
// away in the middle leaves a server that answers the next request.
import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Command } from '../../src/commands/types.ts';
import type { RunningServer } from '../../src/server/app.ts';
import { hashApiKey } from '../../src/server/clock.ts';
import { streamJsonArray } from '../../src/server/http/send-json-array.ts';
import { createDatabase, dropDatabase, requirePostgres } from '../support/postgres.ts';
import { startTestServer } from '../support/server.ts';

const FILLS = 4_000;
const KEY_A = `exch_${'a'.repeat(32)}`;
const KEY_B = `exch_${'b'.repeat(32)}`;

/** A and B trade FILLS times, straight through the service (quicker than as many requests). */
async function trade(server: RunningServer): Promise<void> {
  const service = server.context.service;
  const run = (build: (time: string) => Command) => service.execute((s) => build(s.time));
  await run((time) => ({ type: 'UpsertMarket', time, market: { market_id: 'FS-USD', base_asset: 'FS', quote_asset: 'USD', tick_size: 1, min_order_quantity: 1, reference_price: 100, enabled: true } }));
  await run((time) => ({ type: 'ProvisionTrader', time, username: 'fs_a', trader_id: '00000000-0000-4000-8000-0000000000a1', api_key_hash: hashApiKey(KEY_A) }));
  await run((time) => ({ type: 'ProvisionTrader', time, username: 'fs_b', trader_id: '00000000-0000-4000-8000-0000000000b1', api_key_hash: hashApiKey(KEY_B) }));
  let ids = 0;
  const id = () => `dddddddd-0000-4000-8000-${(++ids).toString(16).padStart(12, '0')}`;
  for (let i = 0; i < FILLS * 2; i++) {
    const trader = i % 2 === 0 ? '00000000-0000-4000-8000-0000000000a1' : '00000000-0000-4000-8000-0000000000b1';
    const side = Math.floor(i / 2) % 2 === 0 ? (i % 2 === 0 ? 'BUY' : 'SELL') : i % 2 === 0 ? 'SELL' : 'BUY';
    await run((time) => ({ type: 'SubmitOrder', time, trader_id: trader, market: 'FS-USD', side, price: 100, quantity: 1, order_type: 'LIMIT', time_in_force: 'GTC', self_trade_prevention: 'NONE', client_order_id: null, order_id: id(), fill_id_seed: id() }));
  }
}

async function get(url: string, key: string, path: string): Promise<{ status: number; text: string }> {
  const res = await fetch(url + path, { headers: { 'x-api-key': key } });
  return { status: res.status, text: await res.text() };
}

function checks(backend: 'in_memory' | 'postgres'): void {
  let server: RunningServer;
  let url: string | null = null;

  before(async function () {
    if (backend === 'postgres') {
      await requirePostgres(this);
      url = await createDatabase('exchange_fills_stream');
    }
    server = await startTestServer({ PER_USER_REQUESTS_PER_SECOND: '100000', ...(url === null ? {} : { STORAGE_BACKEND: 'postgres', DATABASE_URL: url }) });
    await trade(server);
  });
  after(async () => {
    await server?.close();
    if (url !== null) await dropDatabase(url);
  });

  it(`answers ${FILLS.toLocaleString('en-US')} fills as one array, equal to its pages put together`, async () => {
    const whole = await get(server.url, KEY_A, '/api/v1/fills');
    expect(whole.status).to.equal(200);
    expect(whole.text.length).to.be.greaterThan(4 * 64 * 1024);
    const list = JSON.parse(whole.text) as { fill_id: string; occurred_at: string }[];
    expect(list).to.have.length(FILLS);
    const paged: unknown[] = [];
    let next: string | null = null;
    do {
      const r = await get(server.url, KEY_A, `/api/v1/fills?limit=1000${next === null ? '' : `&before=${encodeURIComponent(next)}`}`);
      const page = JSON.parse(r.text) as { fills: unknown[]; next: string | null };
      paged.push(...page.fills);
      next = page.next;
    } while (next !== null);
    expect(list).to.deep.equal(paged.reverse());
    expect(JSON.parse((await get(server.url, KEY_A, '/api/v1/fills?market=FS-USD')).text)).to.deep.equal(list);
    expect(JSON.parse((await get(server.url, KEY_A, '/api/v1/fills?market=ZZ-USD')).text)).to.deep.equal([]);
  });

  it('goes on serving after a client leaves in the middle of the list', async () => {
    const controller = new AbortController();
    const res = await fetch(`${server.url}/api/v1/fills`, { headers: { 'x-api-key': KEY_B }, signal: controller.signal });
    const reader = res.body?.getReader();
    await reader?.read();
    controller.abort();
    const again = await get(server.url, KEY_B, '/api/v1/fills?limit=1');
    expect(again.status).to.equal(200);
    const whole = JSON.parse((await get(server.url, KEY_B, '/api/v1/fills')).text) as unknown[];
    expect(whole).to.have.length(FILLS);
  });
}

describe('HTTP: the unpaged fills list, written as it is read', function () {
  this.timeout(120_000);
  describe('in memory', () => checks('in_memory'));
  describe('PostgreSQL', () => checks('postgres'));
});

describe('streamJsonArray: a client gone while the source was being read', () => {
  it('stops, and lets the source go, instead of waiting for a drain that never comes', async () => {
    let returned = false;
    let closed: () => void = () => undefined;
    const gone = new Promise<void>((resolve) => {
      closed = resolve;
    });
    // The second batch comes only after the client has left, and is bigger than one write.
    const big = Array.from({ length: 4_000 }, (_, i) => ({ fill_id: `f${i}`, padding: 'x'.repeat(40) }));
    const source: AsyncIterable<readonly unknown[]> = {
      [Symbol.asyncIterator]: () => {
        let n = 0;
        return {
          next: async () => {
            n++;
            if (n === 1) return { done: false, value: [{ fill_id: 'first' }] };
            if (n <= 3) {
              await gone;
              await new Promise((resolve) => setImmediate(resolve));
              return { done: false, value: big };
            }
            return { done: true, value: undefined };
          },
          return: async () => {
            returned = true;
            return { done: true, value: undefined };
          },
        };
      },
    };
    let streamed: Promise<unknown> = Promise.resolve();
    let handled: () => void = () => undefined;
    const reading = new Promise<void>((resolve) => {
      handled = resolve;
    });
    const server = http.createServer((_req, res) => {
      res.on('close', () => closed());
      streamed = streamJsonArray(res, 200, source);
      handled();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      const req = http.get({ host: '127.0.0.1', port, path: '/' });
      req.on('error', () => undefined);
      // The client leaves while the server waits on its source for the second batch.
      await reading;
      req.destroy();
      await gone;
      // With the old wait for 'drain', this never settled (and the test times out).
      await streamed;
      expect(returned, 'the source was told to stop').to.equal(true);
    } finally {
      server.close();
    }
  });
});
