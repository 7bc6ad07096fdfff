// The HTTP edges: timeouts (a slowloris client is cut off within the header timeout), security
// headers on the pages, an explicit CORS policy, the brake on wrong admin tokens, and the limits
// shown on the admin state.
import { expect } from 'chai';
import { connect, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { stateHash } from '../../src/projections/state-hash.ts';
import { Client, expectError } from './support/client.ts';
import { ADMIN_TOKEN, startHttpTestServer, type HttpTestServer } from './support/http-server.ts';

function capture(): { lines: Record<string, unknown>[]; raw: string[]; logger: pino.Logger } {
  const lines: Record<string, unknown>[] = [];
  const raw: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n')) {
        if (line === '') continue;
        raw.push(line);
        lines.push(JSON.parse(line) as Record<string, unknown>);
      }
      done();
    },
  });
  return { lines, raw, logger: pino({ level: 'warn' }, sink) };
}

describe('HTTP edges', function () {
  this.timeout(20_000);

  describe('defaults', () => {
    let server: HttpTestServer;
    let c: Client;
    before(async () => {
      server = await startHttpTestServer();
      c = new Client(server.url);
    });
    after(() => server.close());

    it('the dashboard and /docs carry CSP, X-Frame-Options, Referrer-Policy and nosniff', async () => {
      for (const path of ['/', '/docs']) {
        const r = await fetch(server.url + path);
        expect(r.status, path).to.equal(200);
        const csp = r.headers.get('content-security-policy') ?? '';
        expect(csp, path).to.include("default-src 'self'").and.include("script-src 'self'").and.include("frame-ancestors 'none'");
        expect(csp, path).not.to.match(/script-src[^;]*unsafe-inline/);
        expect(r.headers.get('x-frame-options'), path).to.equal('DENY');
        expect(r.headers.get('referrer-policy'), path).to.equal('no-referrer');
        expect(r.headers.get('x-content-type-options'), path).to.equal('nosniff');
      }
    });

    it('CORS is off: no CORS header, and a preflight is not answered as one', async () => {
      const r = await fetch(server.url + '/api/v1/markets', { headers: { origin: 'https://teams.example' } });
      expect(r.status).to.equal(200);
      expect(r.headers.get('access-control-allow-origin')).to.equal(null);
      const pre = await fetch(server.url + '/api/v1/orders', { method: 'OPTIONS', headers: { origin: 'https://teams.example', 'access-control-request-method': 'POST' } });
      expect(pre.headers.get('access-control-allow-origin')).to.equal(null);
      expect(pre.status).to.equal(405);
    });

    it('GET /api/v1/admin/state shows every limit with its default', async () => {
      const r = await c.admin<{ limits: Record<string, unknown> }>('GET', '/api/v1/admin/state');
      expect(r.status).to.equal(200);
      expect(r.body.limits).to.deep.equal({
        per_user_requests_per_second: 100,
        per_user_burst: 100,
        admission_queue_per_trader: 1024,
        ws_abuse_multiple: 10,
        ws_abuse_seconds: 3,
        ws_max_connections: 10_000,
        ws_max_connections_per_trader: 10,
        ws_max_anonymous_per_address: 128,
        ws_idle_timeout_ms: 60_000,
        ws_max_subscriptions: 256,
        ws_snapshots_per_second: 50,
        admin_auth_failures_per_minute: 100,
        http_headers_timeout_ms: 10_000,
        http_request_timeout_ms: 30_000,
        http_keep_alive_timeout_ms: 10_000,
        http_max_header_bytes: 16_384,
        cors_allowed_origins: [],
      });
    });
  });

  describe('configured', () => {
    let server: HttpTestServer;
    let c: Client;
    const log = capture();
    const FAILURES = 3;
    before(async () => {
      server = await startHttpTestServer(
        { HTTP_HEADERS_TIMEOUT_MS: '1000', HTTP_REQUEST_TIMEOUT_MS: '2000', CORS_ALLOWED_ORIGINS: 'https://teams.example, http://localhost:3000', ADMIN_AUTH_FAILURES_PER_MINUTE: String(FAILURES) },
        log.logger,
      );
      c = new Client(server.url);
    });
    after(() => server.close());

    it('a client dribbling its headers one byte a second is cut off within the header timeout, with 408', async () => {
      const { port } = new URL(server.url);
      const socket: Socket = connect(Number(port), '127.0.0.1');
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      const started = performance.now();
      let received = '';
      socket.on('data', (d: Buffer) => (received += d.toString()));
      const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(performance.now() - started)));
      const head = 'GET /api/v1/markets HTTP/1.1\r\nHost: x\r\nX-Slow: ' + 'a'.repeat(100);
      let i = 0;
      socket.write(head[i++] as string);
      const drip = setInterval(() => {
        if (!socket.destroyed) socket.write(head[i++ % head.length] as string);
      }, 1000);
      const ms = await closed;
      clearInterval(drip);
      // Cut off after the 1 s header timeout plus at most one check interval (250 ms), never the
      // minute of Node's default; 2.5 s leaves room for a loaded machine.
      expect(ms).to.be.within(900, 2500);
      expect(received).to.match(/^HTTP\/1\.1 408/);
      expect(received).to.include('"error":"request not received in time"');
    });

    it('an allowed origin gets its preflight answered and sees the headers; another origin is refused', async () => {
      const pre = await fetch(server.url + '/api/v1/orders', { method: 'OPTIONS', headers: { origin: 'https://teams.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-api-key, content-type' } });
      expect(pre.status).to.equal(204);
      expect(pre.headers.get('access-control-allow-origin')).to.equal('https://teams.example');
      expect(pre.headers.get('access-control-allow-methods')).to.include('POST').and.include('DELETE');
      expect(pre.headers.get('access-control-allow-headers')).to.include('x-api-key');
      const get = await fetch(server.url + '/api/v1/markets', { headers: { origin: 'http://localhost:3000' } });
      expect(get.headers.get('access-control-allow-origin')).to.equal('http://localhost:3000');
      expect(get.headers.get('access-control-expose-headers')).to.include('x-error-code').and.include('x-ratelimit-remaining');
      expect(get.headers.get('vary')).to.match(/origin/i);
      const other = await fetch(server.url + '/api/v1/markets', { headers: { origin: 'https://evil.example' } });
      expect(other.status).to.equal(200);
      expect(other.headers.get('access-control-allow-origin')).to.equal(null);
      const otherPre = await fetch(server.url + '/api/v1/orders', { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } });
      expect(otherPre.status).to.equal(403);
      expect(otherPre.headers.get('x-error-code')).to.equal('cors_origin_not_allowed');
      expect(otherPre.headers.get('access-control-allow-origin')).to.equal(null);
    });

    it(`wrong admin tokens from one address: 429 after ${FAILURES}, the right token included; logged without the value; nothing changes`, async () => {
      const before = await c.admin<{ state_hash: string }>('GET', '/api/v1/admin/state-hash');
      for (let i = 0; i < FAILURES; i++) expectError(await c.request('POST', '/api/v1/admin/trading/stop', { token: `Bearer guess-${i}-secret` }), 401, 'invalid_admin_token');
      // Missing or non-Bearer credentials are not guesses and are not counted; they already were not.
      const locked = await c.request('POST', '/api/v1/admin/trading/stop', { token: 'Bearer guess-x-secret' });
      expectError(locked, 429, 'too_many_auth_failures');
      expect(Number(locked.headers.get('retry-after'))).to.be.within(1, 60);
      // The right token from the same address is refused too, so the answer tells a guesser nothing.
      expectError(await c.request('GET', '/api/v1/admin/state', { token: `Bearer ${ADMIN_TOKEN}` }), 429, 'too_many_auth_failures');
      // Trader and public routes are not affected.
      expect((await c.request('GET', '/api/v1/markets')).status).to.equal(200);
      const warnings = log.lines.filter((l) => l['msg'] === 'wrong admin token');
      expect(warnings).to.have.length(FAILURES);
      expect(warnings[0]).to.include({ address: '127.0.0.1', path: '/api/v1/admin/trading/stop' });
      expect(log.raw.join('\n')).not.to.include('secret');
      // The state hash is read directly: admin routes are locked for this address now.
      expect(before.status).to.equal(200);
      expect(stateHash(server.context.service.state, server.context.service.persistence.headHash())).to.equal(before.body.state_hash);
    });
  });
});
