// WebSocket subscription and connection limits: a re-subscribe sends no snapshot, snapshots per
// connection are limited per second, markets per connection bounded; connections are capped per
// trader (at authenticate), per address while unauthenticated and in total (the N+1st upgrade is
// refused with the documented status and a JSON body); idle anonymous sockets are closed.
import { expect } from 'chai';
import { connect } from 'node:net';
import { WebSocket } from 'ws';
import { rawFrom } from '../support/from-address.ts';
import { ExchangeFixture, rid } from './support/exchange-fixture.ts';
import { sleep, WsTestClient } from './support/ws-test-client.ts';

interface Refused {
  readonly status: number;
  readonly code: string | undefined;
  readonly body: unknown;
}

/** Opens a socket expecting the upgrade to be refused; returns the HTTP answer. */
function refusedUpgrade(url: string): Promise<Refused> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.once('open', () => reject(new Error('upgrade was accepted')));
    ws.once('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, code: res.headers['x-error-code'] as string | undefined, body: JSON.parse(text) as unknown }));
    });
    ws.once('error', () => undefined);
  });
}

/** An upgrade that is refused; the client resets the connection as soon as the answer starts (a proxy aborting it does the same). */
function upgradeThenReset(port: number, path = '/ws'): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.on('error', () => undefined);
    socket.once('connect', () => socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`));
    socket.once('data', (d: Buffer) => {
      socket.resetAndDestroy();
      resolve(d.toString().split('\r\n', 1)[0] ?? '');
    });
    socket.once('close', () => reject(new Error('closed without an answer')));
  });
}

function closeOf(c: WsTestClient): Promise<{ code: number; reason: string }> {
  return new Promise((resolve) => c.ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
}

describe('ws: subscription and connection limits', function () {
  this.timeout(20_000);

  describe('subscriptions', () => {
    let fx: ExchangeFixture;
    before(async () => {
      fx = await ExchangeFixture.start({ WS_SNAPSHOTS_PER_SECOND: '5', WS_MAX_SUBSCRIPTIONS: '8' });
      await fx.market('BTC-USD');
    });
    after(() => fx.stop());

    it('subscribing again to a followed market answers subscribed/already_subscribed, never a new snapshot, and deltas keep coming once', async () => {
      const t = await fx.trader('maker');
      const trader = await fx.clientAs(t);
      const watcher = await fx.client();
      const snapshot = await ExchangeFixture.subscribe(watcher, 'BTC-USD');
      for (let i = 0; i < 200; i++) watcher.send({ op: 'subscribe', channel: 'l3', market: 'BTC-USD' });
      for (let i = 0; i < 200; i++) {
        expect(await watcher.nextType('subscribed')).to.deep.equal({ type: 'subscribed', channel: 'l3', market: 'BTC-USD', last_sequence: snapshot['sequence'], epoch: fx.server.context.epoch, already_subscribed: true });
      }
      await trader.request({ op: 'submit_order', request_id: rid(), market: 'BTC-USD', side: 'BUY', price: 5, quantity: 1 });
      expect(await watcher.nextType('delta')).to.include({ sequence: (snapshot['sequence'] as number) + 1 });
      await sleep(100);
      expect(watcher.history.filter((f) => f.type === 'snapshot')).to.have.length(1);
      expect(watcher.untaken('delta')).to.deep.equal([]);
      expect(watcher.untaken('error')).to.deep.equal([]);
    });

    it('at most WS_SNAPSHOTS_PER_SECOND snapshots per connection; the rest get snapshot_rate_limited and no subscription', async () => {
      const c = await fx.client();
      const markets = Array.from({ length: 8 }, (_, i) => `S${i}-USD`);
      for (const m of markets) c.send({ op: 'subscribe', channel: 'l3', market: m });
      const answers = await Promise.all(markets.map((m) => c.next((f) => f['market'] === m || (f.type === 'error' && String(f['message']).includes(m)), `answer for ${m}`)));
      expect(answers.filter((f) => f.type === 'snapshot')).to.have.length(5);
      const refused = answers.filter((f) => f.type === 'error');
      expect(refused).to.have.length(3);
      for (const r of refused) expect(r['code']).to.equal('snapshot_rate_limited');
      await sleep(1100);
      const later = markets.find((m) => refused.some((r) => String(r['message']).includes(m))) as string;
      expect(await ExchangeFixture.subscribe(c, later)).to.include({ type: 'snapshot', market: later });
    });

    it('markets per connection are bounded by WS_MAX_SUBSCRIPTIONS', async () => {
      const c = await fx.client();
      for (let i = 0; i < 8; i++) {
        await ExchangeFixture.subscribe(c, `M${i}-USD`);
        if (i === 4) await sleep(1100); // stay within the snapshot rate
      }
      c.send({ op: 'subscribe', channel: 'l3', market: 'M9-USD' });
      expect(await c.nextType('error')).to.include({ code: 'invalid_message', message: 'too many subscriptions: at most 8 markets per connection' });
    });
  });

  describe('connections', () => {
    let fx: ExchangeFixture;
    before(async () => {
      fx = await ExchangeFixture.start({ WS_MAX_CONNECTIONS: '6', WS_MAX_ANONYMOUS_PER_ADDRESS: '3', WS_MAX_CONNECTIONS_PER_TRADER: '2' });
    });
    after(() => fx.stop());

    it('per trader: the authenticate past WS_MAX_CONNECTIONS_PER_TRADER gets too_many_connections and stays unauthenticated', async () => {
      const t = await fx.trader('many');
      const a = await fx.clientAs(t);
      const b = await fx.clientAs(t);
      const c = await fx.client();
      c.send({ op: 'authenticate', api_key: t.api_key });
      expect(await c.nextType('error')).to.deep.equal({ type: 'error', code: 'too_many_connections', message: 'too many connections for this trader: at most 2 authenticated at once; close one first' });
      expect((await c.request({ op: 'submit_order', request_id: 'u', market: 'BTC-USD', side: 'BUY', price: 1, quantity: 1 }))['code']).to.equal('unauthenticated');
      // Authenticating again on a connection that already counts is no new connection.
      a.send({ op: 'authenticate', api_key: t.api_key });
      expect(await a.nextType('authenticated')).to.include({ trader_id: t.trader_id });
      await b.close();
      await sleep(50);
      c.send({ op: 'authenticate', api_key: t.api_key });
      expect(await c.nextType('authenticated')).to.include({ trader_id: t.trader_id });
      await Promise.all([a.close(), c.close()]);
      await sleep(50);
    });

    it('per address while unauthenticated (429) and in total (503): the N+1st upgrade is refused with a JSON body', async () => {
      const anon = [await fx.client(), await fx.client(), await fx.client()];
      const r429 = await refusedUpgrade(fx.server.wsUrl);
      expect(r429).to.deep.equal({
        status: 429,
        code: 'too_many_connections',
        body: { error: 'too many unauthenticated WebSocket connections from this address: at most 3; authenticate or close some' },
      });
      // An authenticated socket no longer counts as anonymous: room for another.
      const t = await fx.trader('room');
      anon[0]?.send({ op: 'authenticate', api_key: t.api_key });
      await anon[0]?.nextType('authenticated');
      const more = await fx.client();
      const t2 = await fx.trader('room2');
      more.send({ op: 'authenticate', api_key: t2.api_key });
      await more.nextType('authenticated');
      // 4 open; two more reach the total of 6.
      const last = [await fx.clientAs(t2), await fx.client()];
      expect(fx.server.context.service.isClosed).to.equal(false);
      const r503 = await refusedUpgrade(fx.server.wsUrl);
      expect(r503).to.deep.equal({ status: 503, code: 'connection_capacity_reached', body: { error: 'the server holds its maximum of 6 WebSocket connections; retry later' } });
      await Promise.all([...anon, more, ...last].map((c) => c.close()));
    });

    it('a client that resets its refused upgrade takes nothing down: the open connections stay, the next upgrade is served', async () => {
      // The test before terminated the connections it held; the server frees their places once it
      // has seen each socket close, which on a busy machine can lag behind the client's own close.
      const anon = [await until5s(() => fx.client()), await until5s(() => fx.client()), await until5s(() => fx.client())];
      const pid = fx.server.fanout?.pid ?? null;
      // Over the per-address cap (429), and on a path that is not /ws (404): each answered, then reset.
      for (let i = 0; i < 3; i++) expect(await upgradeThenReset(fx.server.port)).to.equal('HTTP/1.1 429 Too Many Requests');
      expect(await upgradeThenReset(fx.server.port, '/nowhere')).to.equal('HTTP/1.1 404 Not Found');
      // And ones that reset at once, without waiting for the answer.
      for (let i = 0; i < 20; i++) {
        const socket = connect({ host: '127.0.0.1', port: fx.server.port });
        socket.on('error', () => undefined);
        socket.once('connect', () => {
          socket.write(`GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`);
          socket.resetAndDestroy();
        });
      }
      // One that neither reads nor closes: the server closes the refused connection itself.
      const held = await rawFrom('127.0.0.1', fx.server.port, [Buffer.from(`GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`)], 3_000);
      expect(held.closed, 'closed by the server').to.equal(true);
      expect(held.text).to.match(/^HTTP\/1\.1 429 /);
      await sleep(200);
      for (const c of anon) expect(c.ws.readyState).to.equal(WebSocket.OPEN);
      expect(fx.server.fanout?.pid ?? null, 'the same fan-out child').to.equal(pid);
      await anon[0]?.close();
      // The freed place is the next upgrade's once the server has seen the close, which on a busy
      // machine can take longer than any fixed pause: ask again on 429 or 503 for up to 5 s (a
      // terminated socket holds its place in the per-address and the total count until then).
      const next = await until5s(() => fx.client());
      await Promise.all([next, ...anon.slice(1)].map((c) => c.close()));
    });
  });

  describe('idle anonymous sockets', () => {
    let fx: ExchangeFixture;
    before(async () => {
      fx = await ExchangeFixture.start({ WS_IDLE_TIMEOUT_MS: '400' });
    });
    after(() => fx.stop());

    it('an unauthenticated socket that follows nothing is closed (1008); a spectator and a trader are not', async () => {
      const idle = await fx.client();
      const closed = closeOf(idle);
      const spectator = await fx.client();
      await ExchangeFixture.subscribe(spectator, 'BTC-USD');
      const t = await fx.trader('idle-trader');
      const trader = await fx.clientAs(t);
      const started = performance.now();
      const { code, reason } = await closed;
      expect(code).to.equal(1008);
      expect(reason).to.equal('idle: authenticate or subscribe within 400 ms');
      expect(performance.now() - started).to.be.below(2000);
      await sleep(900);
      expect(spectator.ws.readyState).to.equal(WebSocket.OPEN);
      expect(trader.ws.readyState).to.equal(WebSocket.OPEN);
    });
  });
});

/** The first connection the server accepts, asking again while it answers 429 or 503 (for up to 5 s). */
async function until5s<T>(connect: () => Promise<T>): Promise<T> {
  const deadline = performance.now() + 5_000;
  for (;;) {
    try {
      return await connect();
    } catch (err) {
      if (!/\b(429|503)\b/.test(String(err)) || performance.now() > deadline) throw err;
      await sleep(25);
    }
  }
}
