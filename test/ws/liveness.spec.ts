// Timers, with a second gateway on its own HTTP server over the same running service, so the
// intervals can be short: periodic heartbeats with per-market sequences, dead peers terminated, and a
// clean close.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { WsGateway } from '../../src/server/ws/gateway.ts';
import { ExchangeFixture, rid } from './support/exchange-fixture.ts';
import { WsTestClient, sleep } from './support/ws-test-client.ts';

describe('ws liveness', () => {
  let fx: ExchangeFixture;
  let http: Server;
  let gateway: WsGateway;
  let url: string;

  before(async () => {
    fx = await ExchangeFixture.start();
    await fx.market('BTC-USD');
    http = createServer((_req, res) => res.writeHead(404).end());
    gateway = new WsGateway(fx.server.context, http, { heartbeatIntervalMs: 100 });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    url = `ws://127.0.0.1:${(http.address() as AddressInfo).port}/ws`;
  });
  after(async () => {
    await gateway.close();
    await new Promise<void>((resolve) => http.close(() => resolve()));
    await fx.stop();
  });

  it('repeats heartbeats with the latest sequence of each subscribed market', async () => {
    const c = fx.track(await WsTestClient.open(url));
    await c.nextType('heartbeat');
    await ExchangeFixture.subscribe(c, 'BTC-USD');
    await ExchangeFixture.subscribe(c, 'NONE-USD');
    const trader = await fx.clientAs(await fx.trader('hb'));
    await trader.request({ op: 'submit_order', request_id: rid(), market: 'BTC-USD', side: 'BUY', price: 5, quantity: 1 });
    const sequence = fx.server.context.service.state.marketData.sequence('BTC-USD');
    const hb = await c.next((f) => f.type === 'heartbeat' && (f['sequences'] as Record<string, number>)['BTC-USD'] === sequence, 'heartbeat with sequence');
    expect(hb['sequences']).to.deep.equal({ 'BTC-USD': sequence, 'NONE-USD': 0 });
    expect(hb['epoch']).to.equal(fx.server.context.epoch);
  });

  it('terminates a peer that does not answer protocol pings, and keeps one that does', async () => {
    const deaf = await WsTestClient.open(url, { autoPong: false });
    const healthy = fx.track(await WsTestClient.open(url));
    const closed = new Promise<number>((resolve) => deaf.ws.once('close', (code) => resolve(code)));
    expect(await closed).to.equal(1006); // terminated, no close handshake
    await sleep(250);
    expect(await healthy.request({ op: 'ping', request_id: 'still-here' })).to.include({ type: 'pong' });
  });

  it('close() terminates every client and refuses new upgrades', async () => {
    const http2 = createServer();
    const g = new WsGateway(fx.server.context, http2, { heartbeatIntervalMs: 60_000 });
    await new Promise<void>((resolve) => http2.listen(0, '127.0.0.1', resolve));
    const url2 = `ws://127.0.0.1:${(http2.address() as AddressInfo).port}/ws`;
    const c = await WsTestClient.open(url2);
    const closed = new Promise<void>((resolve) => c.ws.once('close', () => resolve()));
    expect(g.connectionCount).to.equal(1);
    await g.close();
    await closed;
    expect(g.connectionCount).to.equal(0);
    const refused = await WsTestClient.open(url2).then(
      () => 'upgraded',
      (err: Error) => err.message,
    );
    expect(refused).to.match(/503/);
    await new Promise<void>((resolve) => http2.close(() => resolve()));
  });
});
