// The anonymous WebSocket cap (WS_MAX_ANONYMOUS_PER_ADDRESS) counts clients, not the proxy in front of
// them: behind a proxy named in TRUST_PROXY each spectator is the address the proxy forwards, by
// X-Forwarded-For or a PROXY protocol v2 header, also when the upgrade is handed to the fan-out child
// (the suite runs in both WS_FANOUT modes); a client straight at the server is its own address whatever
// it claims.
import { expect } from 'chai';
import { connect } from 'node:net';
import { WebSocket } from 'ws';
import type { RunningServer } from '../../src/server/app.ts';
import { wsFrom, type UpgradeOutcome } from '../support/from-address.ts';
import { proxyV4 } from '../support/proxy-header.ts';
import { startTestServer } from '../support/server.ts';

const PROXY = '127.0.0.1';
const CAP = 2;

function opened(outcome: UpgradeOutcome): WebSocket {
  if (!('open' in outcome)) throw new Error(`upgrade refused: ${outcome.status} ${String(outcome.code)}`);
  return outcome.open;
}

/** An upgrade through a PROXY protocol proxy at PROXY for the client at `client`. */
function wsThroughProxyProtocol(port: number, client: string): Promise<UpgradeOutcome> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`, {
      createConnection: () => {
        const socket = connect({ host: '127.0.0.1', port, localAddress: PROXY });
        socket.write(proxyV4(client));
        return socket;
      },
    });
    ws.once('open', () => resolve({ open: ws }));
    ws.once('unexpected-response', (_req, res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, code: (res.headers['x-error-code'] as string | undefined) ?? null });
      ws.terminate();
    });
    ws.once('error', reject);
  });
}

describe('ws: the anonymous cap per client address behind a trusted proxy', function () {
  this.timeout(20_000);
  const open: WebSocket[] = [];
  afterEach(() => {
    for (const ws of open.splice(0)) ws.terminate();
  });

  describe(`TRUST_PROXY=${PROXY}, X-Forwarded-For`, () => {
    let server: RunningServer;
    before(async () => {
      server = await startTestServer({ TRUST_PROXY: PROXY, WS_MAX_ANONYMOUS_PER_ADDRESS: String(CAP) });
    });
    after(() => server.close());

    it('spectators behind the proxy are counted one by one; one who passes the cap is refused alone', async () => {
      const clients = ['198.51.100.1', '198.51.100.2', '198.51.100.3', '198.51.100.4'];
      for (const client of clients) for (let i = 0; i < CAP; i++) open.push(opened(await wsFrom(PROXY, server.wsUrl, { 'x-forwarded-for': client })));
      expect(await wsFrom(PROXY, server.wsUrl, { 'x-forwarded-for': '198.51.100.1' })).to.deep.equal({ status: 429, code: 'too_many_connections' });
      open.push(opened(await wsFrom(PROXY, server.wsUrl, { 'x-forwarded-for': '198.51.100.5' })));
    });

    it('a client straight at the server is its own address, whatever X-Forwarded-For it sends', async () => {
      for (let i = 0; i < CAP; i++) open.push(opened(await wsFrom('127.0.4.1', server.wsUrl, { 'x-forwarded-for': `203.0.113.${i}` })));
      expect(await wsFrom('127.0.4.1', server.wsUrl, { 'x-forwarded-for': '203.0.113.99' })).to.deep.equal({ status: 429, code: 'too_many_connections' });
      open.push(opened(await wsFrom('127.0.4.2', server.wsUrl)));
    });
  });

  describe(`TRUST_PROXY=${PROXY}, PROXY_PROTOCOL=true`, () => {
    let server: RunningServer;
    before(async () => {
      server = await startTestServer({ TRUST_PROXY: PROXY, PROXY_PROTOCOL: 'true', WS_MAX_ANONYMOUS_PER_ADDRESS: String(CAP) });
    });
    after(() => server.close());

    it("the header's source is the spectator: counted one by one through the proxy; the socket then works", async () => {
      for (const client of ['198.51.100.1', '198.51.100.2', '198.51.100.3']) for (let i = 0; i < CAP; i++) open.push(opened(await wsThroughProxyProtocol(server.port, client)));
      expect(await wsThroughProxyProtocol(server.port, '198.51.100.2')).to.deep.equal({ status: 429, code: 'too_many_connections' });
      const ws = opened(await wsThroughProxyProtocol(server.port, '198.51.100.4'));
      open.push(ws);
      const answer = new Promise<Record<string, unknown>>((resolve) =>
        ws.on('message', (data: Buffer) => {
          const frame = JSON.parse(data.toString()) as Record<string, unknown>;
          if (frame['type'] !== 'heartbeat') resolve(frame);
        }),
      );
      ws.send(JSON.stringify({ op: 'subscribe', channel: 'l2', market: 'NONE-USD', request_id: 'x' }));
      expect(await answer).to.include({ type: 'snapshot', channel: 'l2', market: 'NONE-USD' });
    });
  });
});
