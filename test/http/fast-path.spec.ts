// The fast path against the express mount: two servers set up alike, one serving the trader routes
// through the fast path and one through express only, get the same seeded stream of requests (good
// orders, bad ones, every kind of malformed body and path, missing, wrong and disabled keys, spellings
// that only express matches, bodies over the limit with and without Content-Length) and must answer
// each alike: status, error code and text, the headers that carry meaning, and the body (ids and times
// aside, which are random or clock-made on each server).
import { expect } from 'chai';
import fc from 'fast-check';
import { startServer, type RunningServer } from '../../src/server/app.ts';
import { loadConfig } from '../../src/server/config.ts';
import { createLogger } from '../../src/server/logger.ts';
import { Client } from './support/client.ts';
import { ADMIN_TOKEN } from './support/http-server.ts';
import { sendRaw, type RawReply } from './support/raw-request.ts';

const SEED = 20261124;
const REQUESTS = 1500;
const TRADERS = ['alice', 'bob', 'carol', 'dave'] as const;
const UNKNOWN_ID = '3f2b7a3e-8f5e-4d7c-9a51-1c2d3e4f5a6b';

/** A request before it is sent: `{order:N}` names the N-th order either server created (mod their count). */
interface Spec {
  readonly method: string;
  readonly path: string;
  /** Whose key: a trader's, none, a wrong one, a trader's padded with spaces. */
  readonly auth: (typeof TRADERS)[number] | 'none' | 'wrong' | 'padded';
  readonly body?: string;
  readonly chunked?: boolean;
}

const number = fc.oneof(
  { weight: 12, arbitrary: fc.integer({ min: 19, max: 21 }).map((n) => String(n * 5)) },
  { weight: 3, arbitrary: fc.integer({ min: 1, max: 6 }).map(String) },
  { weight: 1, arbitrary: fc.constantFrom('0', '-5', '2.5', '1e400', '-1e400', '9007199254740993', '"100"', 'null', 'true', '[]', '1e-7') },
);
/** Mostly absent; when present, mostly a valid value. */
const optional = <T>(a: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: a });
const pick = (good: readonly string[], bad: readonly string[]): fc.Arbitrary<string> => fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...good) }, { weight: 1, arbitrary: fc.constantFrom(...bad) });
const orderBody = fc
  .record({
    market: pick(['"BTC-USD"', '"ETH-USD"'], ['"SOL-USD"', '"DOGE-USD"', '"btc"', '7', 'null']),
    side: pick(['"BUY"', '"SELL"'], ['"buy"', '1']),
    price: number,
    noPrice: fc.integer({ min: 0, max: 19 }),
    quantity: number,
    client_order_id: optional(pick(['"c1"', '"c2"', '"c3"', '"c4"'], ['""', `"${'x'.repeat(65)}"`, '5'])),
    type: optional(pick(['"LIMIT"', '"MARKET"'], ['"STOP"'])),
    time_in_force: optional(pick(['"GTC"', '"IOC"', '"FOK"', '"POST_ONLY"'], ['"DAY"'])),
    self_trade_prevention: optional(pick(['"NONE"', '"CANCEL_TAKER"', '"CANCEL_MAKER"', '"CANCEL_BOTH"'], ['"X"'])),
    extra: optional(fc.constantFrom('"pad"', '{"a":[1,2]}')),
  })
  .map((r) => {
    const fields: string[] = [`"market":${r.market}`, `"side":${r.side}`];
    // A market order usually comes without a price (with one, it is refused); a limit order rarely does.
    const withPrice = r.type === '"MARKET"' ? r.noPrice === 0 : r.noPrice !== 0;
    if (withPrice) fields.push(`"price":${r.price}`);
    fields.push(`"quantity":${r.quantity}`);
    for (const k of ['client_order_id', 'type', 'time_in_force', 'self_trade_prevention', 'extra'] as const) if (r[k] !== undefined) fields.push(`"${k}":${r[k]}`);
    return `{${fields.join(',')}}`;
  });
const garbage = fc.oneof(
  fc.constantFrom('', '   ', '{', '[]', 'null', '"x"', '7', '{"a":1,}', "{'a':1}", '{"market":"BTC-USD" "side":"BUY"}', 'undefined', '\u0000'),
  fc.string({ maxLength: 20 }),
  fc.json({ maxDepth: 2 }),
);
const amendBody = fc.oneof({ weight: 4, arbitrary: number.map((n) => `{"remaining":${n}}`) }, { weight: 1, arbitrary: garbage });
const orderPath = fc.oneof(
  { weight: 6, arbitrary: fc.nat({ max: 200 }).map((n) => `/api/v1/orders/{order:${n}}`) },
  { weight: 1, arbitrary: fc.nat({ max: 200 }).map((n) => `/api/v1/orders/{ORDER:${n}}`) },
  { weight: 1, arbitrary: fc.constantFrom(`/api/v1/orders/${UNKNOWN_ID}`, '/api/v1/orders/not-a-uuid', '/api/v1/orders/by-client-id', '/api/v1/orders/{order:0}/', '/api/v1/orders/%7Bx', '/api/v1/orders/%33f2b7a3e-8f5e-4d7c-9a51-1c2d3e4f5a6b', '/API/v1/orders/{order:1}') },
);
const clientIdPath = fc.constantFrom('c1', 'c2', 'c3', 'c-none', 'x'.repeat(65), 'a.b:c_d-e').map((id) => `/api/v1/orders/by-client-id/${id}`);
const readPath = fc.constantFrom(
  '/api/v1/user',
  '/api/v1/positions',
  '/api/v1/portfolio',
  '/api/v1/leaderboard',
  '/api/v1/leaderboard?limit=2',
  '/api/v1/leaderboard?limit=-1',
  '/api/v1/leaderboard?format=csv',
  '/api/v1/leaderboard?format=xml',
  '/api/v1/open-orders',
  '/api/v1/open-orders?market=BTC-USD',
  '/api/v1/open-orders?market=btc',
  '/api/v1/open-orders?limit=2',
  '/api/v1/open-orders?limit=0',
  '/api/v1/open-orders?before=garbage',
  '/api/v1/fills',
  '/api/v1/fills?market=ETH-USD&limit=3',
  '/api/v1/fills?limit=1e3',
  '/api/v1/fills?x=1&x=2',
  '/API/V1/USER',
  '/api/v1/user/',
);
const auth = fc.oneof({ weight: 12, arbitrary: fc.constantFrom('alice', 'bob', 'carol') }, { weight: 1, arbitrary: fc.constantFrom('none', 'wrong', 'padded', 'dave') }) as fc.Arbitrary<Spec['auth']>;

const spec: fc.Arbitrary<Spec> = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.record({ method: fc.constant('POST'), path: pick(['/api/v1/orders'], ['/api/v1/orders?x=1', '/api/v1/orders/']), auth, body: fc.oneof({ weight: 8, arbitrary: orderBody }, { weight: 1, arbitrary: garbage }) }),
  },
  { weight: 3, arbitrary: fc.record({ method: fc.constant('DELETE'), path: orderPath, auth, body: optional(garbage) }) },
  { weight: 3, arbitrary: fc.record({ method: fc.constant('PATCH'), path: orderPath, auth, body: amendBody }) },
  { weight: 2, arbitrary: fc.record({ method: fc.constant('GET'), path: orderPath, auth }) },
  { weight: 2, arbitrary: fc.record({ method: fc.constantFrom('GET', 'DELETE', 'PATCH'), path: clientIdPath, auth, body: optional(amendBody) }) },
  { weight: 4, arbitrary: fc.record({ method: fc.constant('GET'), path: readPath, auth }) },
  { weight: 1, arbitrary: fc.record({ method: fc.constant('DELETE'), path: fc.constantFrom('/api/v1/orders', '/api/v1/orders?market=ETH-USD', '/api/v1/orders?market=bad'), auth, body: optional(garbage) }) },
  { weight: 1, arbitrary: fc.record({ method: fc.constantFrom('PUT', 'HEAD', 'OPTIONS'), path: fc.constantFrom('/api/v1/orders', `/api/v1/orders/${UNKNOWN_ID}`, '/api/v1/user'), auth }) },
  {
    weight: 1,
    arbitrary: fc.record({
      method: fc.constantFrom('POST', 'PATCH', 'DELETE'),
      path: fc.constantFrom('/api/v1/orders', '/api/v1/orders/{order:3}'),
      auth,
      body: fc.constant(JSON.stringify({ market: 'BTC-USD', side: 'BUY', price: 5, quantity: 2, pad: 'p'.repeat(70_000) })),
      chunked: fc.boolean(),
    }),
  },
);

interface Side {
  readonly server: RunningServer;
  readonly keys: Record<string, string>;
  readonly orders: string[];
}

async function startSide(fastPath: boolean): Promise<Side> {
  const config = loadConfig({ BIND_ADDR: '127.0.0.1:0', ADMIN_API_TOKEN: ADMIN_TOKEN, LOG_LEVEL: 'silent', PER_USER_REQUESTS_PER_SECOND: '1000000' });
  const server = await startServer(config, createLogger('silent'), { httpFastPath: fastPath });
  const c = new Client(server.url);
  await c.market({ market_id: 'BTC-USD', tick_size: 5, min_order_quantity: 2 });
  await c.market({ market_id: 'ETH-USD', reference_price: 100 });
  await c.market({ market_id: 'SOL-USD', enabled: false });
  const keys: Record<string, string> = {};
  for (const name of TRADERS) {
    const t = await c.provision(name);
    keys[name] = t.api_key;
    if (name === 'dave') expect((await c.admin('POST', `/api/v1/admin/users/${t.trader_id}/disable`)).status).to.equal(200);
  }
  return { server, keys, orders: [] };
}

function materialize(side: Side, s: Spec): { path: string; headers: Record<string, string> } {
  const path = s.path.replace(/\{(order|ORDER):(\d+)\}/g, (_m, kind: string, n: string) => {
    const id = side.orders.length === 0 ? UNKNOWN_ID : (side.orders[Number(n) % side.orders.length] as string);
    return kind === 'ORDER' ? id.toUpperCase() : id;
  });
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (s.auth === 'wrong') headers['x-api-key'] = `exch_${'0'.repeat(32)}`;
  else if (s.auth === 'padded') headers['x-api-key'] = `  ${side.keys['alice']}  `;
  else if (s.auth !== 'none') headers['x-api-key'] = side.keys[s.auth] as string;
  return { path, headers };
}

/** What may differ between two servers that did the same: ids, keys, times, cursors. */
function normalized(text: string): string {
  return text
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<id>')
    .replace(/exch_[0-9a-f]{32}/g, '<key>')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>')
    .replace(/"next":"[^"]*"/g, '"next":"<cursor>"');
}

const COMPARED_HEADERS = ['content-type', 'x-error-code', 'x-ratelimit-limit', 'retry-after', 'connection', 'allow', 'content-length'] as const;

function describeReply(r: RawReply): Record<string, unknown> {
  const headers: Record<string, string | null> = {};
  for (const h of COMPARED_HEADERS) headers[h] = h === 'content-length' ? (r.headers.get(h) === null ? null : 'present') : r.headers.get(h);
  return { status: r.status, headers, remaining: r.headers.has('x-ratelimit-remaining'), body: normalized(r.text) };
}

describe('HTTP fast path answers as the express mount does', function () {
  this.timeout(120_000);
  let fast: Side;
  let express: Side;

  before(async () => {
    [fast, express] = await Promise.all([startSide(true), startSide(false)]);
  });
  after(async () => {
    await Promise.all([fast.server.close(), express.server.close()]);
  });

  it(`${REQUESTS} seeded requests at the trader routes: the same answers`, async () => {
    const specs = fc.sample(spec, { seed: SEED, numRuns: REQUESTS });
    const statuses = new Map<number, number>();
    for (const [i, s] of specs.entries()) {
      const replies = await Promise.all(
        [fast, express].map((side) => {
          const { path, headers } = materialize(side, s);
          return sendRaw(side.server.url, { method: s.method, path, headers, ...(s.body === undefined ? {} : { body: s.body }), ...(s.chunked === true ? { chunked: true } : {}) }).catch((err: unknown) => {
            throw new Error(`#${i} ${s.method} ${path} ${JSON.stringify(s.body ?? '').slice(0, 100)} ${s.chunked}: ${String(err)}`);
          });
        }),
      );
      const [a, b] = replies as [RawReply, RawReply];
      expect(describeReply(a), `#${i} ${s.method} ${s.path} ${s.auth} ${(s.body ?? '').slice(0, 200)}`).to.deep.equal(describeReply(b));
      statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
      if (s.method === 'POST' && a.status === 201) {
        fast.orders.push((JSON.parse(a.text) as { order: { id: string } }).order.id);
        express.orders.push((JSON.parse(b.text) as { order: { id: string } }).order.id);
      }
    }
    // The stream reached both sides of every check: accepted orders, duplicates, every class of refusal.
    for (const status of [200, 201, 400, 401, 403, 404, 405, 409, 413]) expect(statuses.get(status) ?? 0, `status ${status}: ${JSON.stringify([...statuses])}`).to.be.greaterThan(0);
    expect(fast.server.context.service.exchange.seq).to.equal(express.server.context.service.exchange.seq);
    // Counted alike too: refusals by route and code, and one latency observation per request.
    const counted = async (side: Side): Promise<string[]> => {
      const text = await (await fetch(`${side.server.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text();
      return text.split('\n').filter((l) => l.startsWith('exchange_http_refusals_total{') || /^exchange_http_request_duration_seconds_count\{/.test(l));
    };
    const [fastCounts, expressCounts] = await Promise.all([counted(fast), counted(express)]);
    expect(fastCounts.length).to.be.greaterThan(10);
    expect(fastCounts).to.deep.equal(expressCounts);
  });

  it('a body that arrives in pieces is read whole; a client that leaves mid-body changes nothing and is not answered', async () => {
    const { connect } = await import('node:net');
    const body = JSON.stringify({ market: 'ETH-USD', side: 'BUY', price: 1, quantity: 1, client_order_id: 'pieces' });
    for (const side of [fast, express]) {
      const port = Number(new URL(side.server.url).port);
      const head = `POST /api/v1/orders HTTP/1.1\r\nHost: x\r\nx-api-key: ${side.keys['carol']}\r\ncontent-length: ${body.length}\r\n\r\n`;
      const seq = side.server.context.service.exchange.seq;
      // Half a body, then gone.
      await new Promise<void>((resolve) => {
        const socket = connect(port, '127.0.0.1', () => {
          socket.write(head + body.slice(0, 10));
          setTimeout(() => socket.destroy(), 50);
        });
        socket.on('close', () => resolve());
      });
      expect(side.server.context.service.exchange.seq).to.equal(seq);
      // The whole body in three pieces, 30 ms apart.
      const text = await new Promise<string>((resolve) => {
        let out = '';
        const socket = connect(port, '127.0.0.1', () => {
          socket.write(head);
          setTimeout(() => socket.write(body.slice(0, 20)), 30);
          setTimeout(() => socket.write(body.slice(20)), 60);
        });
        socket.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('"resting"')) socket.end();
        });
        socket.on('close', () => resolve(out));
      });
      expect(text).to.match(/^HTTP\/1\.1 201 /);
      expect(text).to.include('"client_order_id":"pieces"');
      expect(side.server.context.service.exchange.seq).to.equal(seq + 1);
    }
  });

  it('requests pipelined on one connection are handled in the order sent: a cancel or a read right behind an order sees it', async () => {
    const { connect } = await import('node:net');
    /** Writes the requests in one piece and reads as many responses (each with a Content-Length). */
    const pipelined = (port: number, requests: string[]): Promise<{ status: number; body: string }[]> =>
      new Promise((resolve, reject) => {
        let buffer = '';
        const replies: { status: number; body: string }[] = [];
        const socket = connect(port, '127.0.0.1', () => socket.write(requests.join('')));
        socket.on('error', reject);
        socket.on('data', (d: Buffer) => {
          buffer += d.toString('latin1');
          for (;;) {
            const end = buffer.indexOf('\r\n\r\n');
            if (end < 0) break;
            const length = Number(/content-length: (\d+)/i.exec(buffer.slice(0, end))?.[1] ?? 0);
            if (buffer.length < end + 4 + length) break;
            replies.push({ status: Number(buffer.slice(9, 12)), body: Buffer.from(buffer.slice(end + 4, end + 4 + length), 'latin1').toString('utf8') });
            buffer = buffer.slice(end + 4 + length);
          }
          if (replies.length === requests.length) {
            socket.end();
            resolve(replies);
          }
        });
      });
    for (const side of [fast, express]) {
      const port = Number(new URL(side.server.url).port);
      const key = side.keys['bob'] as string;
      const post = (cid: string): string => {
        const body = JSON.stringify({ market: 'ETH-USD', side: 'BUY', price: 1, quantity: 1, client_order_id: cid });
        return `POST /api/v1/orders HTTP/1.1\r\nHost: x\r\nx-api-key: ${key}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`;
      };
      const bare = (method: string, path: string): string => `${method} ${path} HTTP/1.1\r\nHost: x\r\nx-api-key: ${key}\r\n\r\n`;
      const [placed, read, canceled, again] = await pipelined(port, [post('pipe1'), bare('GET', '/api/v1/orders/by-client-id/pipe1'), bare('DELETE', '/api/v1/orders/by-client-id/pipe1'), bare('GET', '/api/v1/orders/by-client-id/pipe1')]);
      expect(placed?.status).to.equal(201);
      expect(read?.status, read?.body).to.equal(200);
      expect(canceled?.status, canceled?.body).to.equal(200);
      expect((JSON.parse(again?.body ?? '{}') as { order?: { status?: string } }).order?.status).to.equal('canceled');
      // Cancel-all right behind two orders cancels both.
      const [, , all] = await pipelined(port, [post('pipe2'), post('pipe3'), bare('DELETE', '/api/v1/orders?market=ETH-USD')]);
      expect((JSON.parse(all?.body ?? '{}') as { canceled?: unknown[] }).canceled).to.have.length(2);
    }
  });

  it('a URL with a fragment or a backslash is read as express reads it, on both mounts', async () => {
    const replies = await Promise.all(
      [fast, express].map(async (side) => {
        const key = side.keys['carol'] as string;
        const placed = await sendRaw(side.server.url, { method: 'POST', path: '/api/v1/orders', headers: { 'x-api-key': key }, body: '{"market":"ETH-USD","side":"BUY","price":1,"quantity":1,"client_order_id":"frag1"}' });
        const id = (JSON.parse(placed.text) as { order: { id: string } }).order.id;
        const out: number[] = [];
        for (const path of [`/api/v1/orders/${id}#frag`, '/api/v1/orders/by-client-id/frag1#frag', '/api/v1/orders/by-client-id\\frag1', '/api/v1/open-orders?market=ETH-USD#x', '/api/v1/open-orders/?market=ETH-USD#x']) {
          out.push((await sendRaw(side.server.url, { method: 'GET', path, headers: { 'x-api-key': key } })).status);
        }
        return out;
      }),
    );
    expect(replies[0]).to.deep.equal(replies[1]);
    expect((replies[0] as number[]).slice(0, 2)).to.deep.equal([200, 200]);
  });

  it('the rate limit: the same refusals, texts and headers', async () => {
    const sides = await Promise.all(
      [true, false].map(async (fastPath) => {
        const config = loadConfig({ BIND_ADDR: '127.0.0.1:0', ADMIN_API_TOKEN: ADMIN_TOKEN, LOG_LEVEL: 'silent', PER_USER_REQUESTS_PER_SECOND: '3' });
        const server = await startServer(config, createLogger('silent'), { httpFastPath: fastPath });
        const c = new Client(server.url);
        await c.market({ market_id: 'BTC-USD' });
        return { server, key: (await c.provision('a')).api_key };
      }),
    );
    try {
      const answers = await Promise.all(
        sides.map(async ({ server, key }) => {
          const out: Record<string, unknown>[] = [];
          for (let i = 0; i < 5; i++) {
            const r = await sendRaw(server.url, { method: 'POST', path: '/api/v1/orders', headers: { 'x-api-key': key }, body: '{"market":"BTC-USD","side":"BUY","price":1,"quantity":1}' });
            out.push({ ...describeReply(r), remaining: r.headers.get('x-ratelimit-remaining'), retry: r.headers.get('retry-after') });
          }
          return out;
        }),
      );
      expect(answers[0]).to.deep.equal(answers[1]);
      expect((answers[0] as Record<string, unknown>[]).map((a) => a['status'])).to.deep.equal([201, 201, 201, 429, 429]);
    } finally {
      await Promise.all(sides.map((s) => s.server.close()));
    }
  });
});
