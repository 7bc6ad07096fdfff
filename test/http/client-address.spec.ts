// Whose address a request comes from (src/server/client-address/), as the brake on wrong admin tokens
// and the logs see it, with clients on distinct loopback addresses as people on distinct machines: by
// default the TCP peer's, whatever X-Forwarded-For says; behind a proxy named in TRUST_PROXY, the
// client it forwards, from X-Forwarded-For or a PROXY protocol v2 header (PROXY_PROTOCOL=true), so one
// outsider's wrong tokens lock out that outsider and not the organizer. Nothing a client or a broken
// proxy sends takes the process down.
import { expect } from 'chai';
import fc from 'fast-check';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { loadConfig } from '../../src/server/config.ts';
import { httpFrom, rawFrom } from '../support/from-address.ts';
import { proxyHeaderV2, proxyLocal, proxyV4 } from '../support/proxy-header.ts';
import { ADMIN_TOKEN, startHttpTestServer, type HttpTestServer } from './support/http-server.ts';

const FAILURES = 3;
/** The proxy in front: this machine's usual loopback address. */
const PROXY = '127.0.0.1';
const STATE = '/api/v1/admin/state';
const wrong = (i: number): Record<string, string> => ({ authorization: `Bearer wrong-${i}` });
const right = { authorization: `Bearer ${ADMIN_TOKEN}` };

function capture(): { lines: Record<string, unknown>[]; logger: pino.Logger } {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n')) if (line !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: pino({ level: 'debug' }, sink) };
}

function statusLine(text: string): string {
  return text.split('\r\n', 1)[0] ?? '';
}

function request(method: string, path: string, headers: Record<string, string> = {}): Buffer {
  const lines = Object.entries({ host: 'exchange.test', connection: 'close', ...headers }).map(([k, v]) => `${k}: ${v}\r\n`);
  return Buffer.from(`${method} ${path} HTTP/1.1\r\n${lines.join('')}\r\n`);
}

describe('client addresses: TRUST_PROXY, X-Forwarded-For, PROXY protocol v2', function () {
  this.timeout(30_000);

  it('TRUST_PROXY is validated at start: a bad entry names the variable; PROXY_PROTOCOL needs it', () => {
    expect(loadConfig({}).trustProxy).to.deep.equal([]);
    expect(loadConfig({ TRUST_PROXY: ' 10.0.0.1, 192.168.0.0/16 loopback ::1 ' }).trustProxy).to.deep.equal(['10.0.0.1', '192.168.0.0/16', 'loopback', '::1']);
    expect(() => loadConfig({ TRUST_PROXY: '10.0.0.1,haproxy' })).to.throw('TRUST_PROXY="10.0.0.1,haproxy": "haproxy" is not an IP address');
    expect(() => loadConfig({ TRUST_PROXY: '10.0.0.0/33' })).to.throw('TRUST_PROXY="10.0.0.0/33"');
    expect(() => loadConfig({ PROXY_PROTOCOL: 'true' })).to.throw('PROXY_PROTOCOL=true needs TRUST_PROXY');
  });

  describe('without TRUST_PROXY (the default)', () => {
    let server: HttpTestServer;
    const log = capture();
    before(async () => {
      server = await startHttpTestServer({ ADMIN_AUTH_FAILURES_PER_MINUTE: String(FAILURES) }, log.logger);
    });
    after(() => server.close());

    it('X-Forwarded-For changes nothing: a peer that guessed is locked out whatever it claims; another peer is not', async () => {
      for (let i = 0; i < FAILURES; i++) expect((await httpFrom('127.0.3.1', server.url + STATE, 'GET', { ...wrong(i), 'x-forwarded-for': `198.51.100.${i}` })).status).to.equal(401);
      expect(await httpFrom('127.0.3.1', server.url + STATE, 'GET', { ...right, 'x-forwarded-for': '198.51.100.77' })).to.include({ status: 429, code: 'too_many_auth_failures' });
      expect((await httpFrom('127.0.3.2', server.url + STATE, 'GET', right)).status).to.equal(200);
      const warned = log.lines.filter((l) => l['msg'] === 'wrong admin token').map((l) => l['address']);
      expect(warned).to.deep.equal(['127.0.3.1', '127.0.3.1', '127.0.3.1']);
      // The request log names the client too.
      expect(log.lines.filter((l) => l['msg'] === 'request' && l['status'] === 200).map((l) => l['address'])).to.include('127.0.3.2');
    });

    it('a PROXY header is not read: it is the start of a malformed request (400)', async () => {
      const out = await rawFrom('127.0.3.3', Number(new URL(server.url).port), [Buffer.concat([proxyV4('198.51.100.5'), request('GET', STATE, right)])]);
      expect(statusLine(out.text)).to.equal('HTTP/1.1 400 Bad Request');
    });
  });

  describe(`TRUST_PROXY=${PROXY} (a proxy on this machine)`, () => {
    let server: HttpTestServer;
    const log = capture();
    before(async () => {
      server = await startHttpTestServer({ TRUST_PROXY: PROXY, ADMIN_AUTH_FAILURES_PER_MINUTE: String(FAILURES) }, log.logger);
    });
    after(() => server.close());

    it('the client is the nearest untrusted address of X-Forwarded-For: one outsider locked out, the organizer not', async () => {
      // The attacker's wrong tokens, through the proxy (which appends the address it saw).
      for (let i = 0; i < FAILURES; i++) expect((await httpFrom(PROXY, server.url + STATE, 'GET', { ...wrong(i), 'x-forwarded-for': '203.0.113.66' })).status).to.equal(401);
      expect(await httpFrom(PROXY, server.url + STATE, 'GET', { ...right, 'x-forwarded-for': '203.0.113.66' })).to.include({ status: 429, code: 'too_many_auth_failures' });
      // The organizer, through the same proxy.
      expect((await httpFrom(PROXY, server.url + STATE, 'GET', { ...right, 'x-forwarded-for': '203.0.113.10' })).status).to.equal(200);
      // Entries the attacker wrote itself stand left of what the proxy appended: they are never reached.
      expect(await httpFrom(PROXY, server.url + STATE, 'GET', { ...right, 'x-forwarded-for': '203.0.113.10, 203.0.113.66' })).to.include({ status: 429 });
      expect((await httpFrom(PROXY, server.url + STATE, 'GET', { ...right, 'x-forwarded-for': '203.0.113.66, 203.0.113.10' })).status).to.equal(200);
      const warned = log.lines.filter((l) => l['msg'] === 'wrong admin token').map((l) => l['address']);
      expect(warned).to.deep.equal(['203.0.113.66', '203.0.113.66', '203.0.113.66']);
    });

    it('a client straight at the server (not through the proxy) cannot change its address with X-Forwarded-For', async () => {
      for (let i = 0; i < FAILURES; i++) expect((await httpFrom('127.0.3.4', server.url + STATE, 'GET', { ...wrong(i), 'x-forwarded-for': `203.0.113.${100 + i}` })).status).to.equal(401);
      expect(await httpFrom('127.0.3.4', server.url + STATE, 'GET', { ...right, 'x-forwarded-for': '203.0.113.10' })).to.include({ status: 429 });
      // Nor lock out the address it names: the organizer behind the proxy still gets in.
      expect((await httpFrom(PROXY, server.url + STATE, 'GET', { ...right, 'x-forwarded-for': '203.0.113.101' })).status).to.equal(200);
      expect(log.lines.filter((l) => l['msg'] === 'wrong admin token' && l['address'] === '127.0.3.4')).to.have.length(FAILURES);
    });

    it('what a trusted proxy passes on that is no address leaves the client at the proxy; IPv4-mapped IPv6 is IPv4', async () => {
      log.lines.length = 0;
      await httpFrom(PROXY, server.url + STATE, 'GET', { ...wrong(9), 'x-forwarded-for': 'not-an-address' });
      await httpFrom(PROXY, server.url + STATE, 'GET', { ...wrong(9), 'x-forwarded-for': '::ffff:198.51.100.200' });
      await httpFrom(PROXY, server.url + STATE, 'GET', { ...wrong(9), 'x-forwarded-for': '2001:DB8:0:0::1' });
      expect(log.lines.filter((l) => l['msg'] === 'wrong admin token').map((l) => l['address'])).to.deep.equal([PROXY, '198.51.100.200', '2001:db8::1']);
    });
  });

  // Long enough for a request sent a byte every ~2 ms (some 200 writes) on a loaded machine.
  const HEADERS_MS = 1_500;

  describe(`PROXY_PROTOCOL=true, TRUST_PROXY=${PROXY}`, () => {
    let server: HttpTestServer;
    let port: number;
    const log = capture();
    before(async () => {
      server = await startHttpTestServer({ TRUST_PROXY: PROXY, PROXY_PROTOCOL: 'true', ADMIN_AUTH_FAILURES_PER_MINUTE: String(FAILURES), HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_MS) }, log.logger);
      port = Number(new URL(server.url).port);
    });
    after(() => server.close());

    const through = async (client: string, headers: Record<string, string>, split = false): Promise<string> => {
      const bytes = Buffer.concat([proxyV4(client), request('GET', STATE, headers)]);
      // Split: one byte a write, so the header and the request arrive in many pieces.
      const out = await rawFrom(PROXY, port, split ? [...bytes].map((b) => Uint8Array.of(b)) : [bytes], 5_000, split);
      return statusLine(out.text);
    };

    it("the header's source is the client: one outsider locked out, the organizer not; in one write or byte by byte", async () => {
      for (let i = 0; i < FAILURES; i++) expect(await through('198.51.100.66', wrong(i), i === 1)).to.equal('HTTP/1.1 401 Unauthorized');
      expect(await through('198.51.100.66', right)).to.equal('HTTP/1.1 429 Too Many Requests');
      expect(await through('198.51.100.10', right, true)).to.equal('HTTP/1.1 200 OK');
      expect(log.lines.filter((l) => l['msg'] === 'wrong admin token').map((l) => l['address'])).to.deep.equal(['198.51.100.66', '198.51.100.66', '198.51.100.66']);
    });

    it('requests pipelined behind the header are all answered; LOCAL (a health check) is the proxy itself', async () => {
      const two = await rawFrom(PROXY, port, [Buffer.concat([proxyV4('198.51.100.11'), request('GET', '/health', { connection: 'keep-alive' }), request('GET', '/api/v1/markets')])]);
      expect(two.text.match(/HTTP\/1\.1 200 OK/g)).to.have.length(2);
      const local = await rawFrom(PROXY, port, [Buffer.concat([proxyLocal(), request('GET', '/health')])]);
      expect(statusLine(local.text)).to.equal('HTTP/1.1 200 OK');
    });

    it('from the trusted proxy, a connection without a header, with a bad one, or silent is closed unanswered', async () => {
      log.lines.length = 0;
      const bare = await rawFrom(PROXY, port, [request('GET', '/health')]);
      expect(bare).to.deep.equal({ text: '', closed: true });
      const v1 = await rawFrom(PROXY, port, [Buffer.from('PROXY TCP4 198.51.100.1 127.0.0.1 5000 8080\r\n'), request('GET', '/health')]);
      expect(v1).to.deep.equal({ text: '', closed: true });
      const started = performance.now();
      const silent = await rawFrom(PROXY, port, [], 8_000);
      expect(silent).to.deep.equal({ text: '', closed: true });
      expect(performance.now() - started).to.be.within(HEADERS_MS - 100, HEADERS_MS + 3_000);
      const half = await rawFrom(PROXY, port, [proxyV4('198.51.100.1').subarray(0, 20)], 5_000);
      expect(half).to.deep.equal({ text: '', closed: true });
      const reasons = log.lines.filter((l) => l['msg'] === 'PROXY protocol: connection from a trusted proxy refused').map((l) => l['reason']);
      expect(reasons).to.have.length(4);
      expect(reasons[0]).to.match(/signature/);
      expect(reasons[2]).to.include(`within ${HEADERS_MS} ms`);
    });

    it('another peer is served as it is: its own address, and a PROXY header it sends is a malformed request (400)', async () => {
      const spoof = await rawFrom('127.0.3.5', port, [Buffer.concat([proxyV4('198.51.100.10'), request('GET', STATE, right)])]);
      expect(statusLine(spoof.text)).to.equal('HTTP/1.1 400 Bad Request');
      expect((await httpFrom('127.0.3.5', server.url + '/health', 'GET')).status).to.equal(200);
    });

    it('any first bytes from the trusted proxy (fuzzed headers, garbage): the connection is served or closed, the process keeps serving', async () => {
      const headerish = fc.tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), fc.uint8Array({ maxLength: 60 }), fc.nat({ max: 300 })).map(([vc, ft, block, declared]) => {
        const h = proxyHeaderV2({ command: 0, family: 0, transport: 0, addresses: block });
        h[12] = vc;
        h[13] = ft;
        h.writeUInt16BE(Math.min(declared, 65535), 14);
        return h;
      });
      const samples = fc.sample(fc.oneof(headerish, fc.uint8Array({ minLength: 1, maxLength: 64 })), { numRuns: 60, seed: 20261207 });
      const outcomes = await Promise.all(samples.map((first) => rawFrom(PROXY, port, [first, request('GET', '/health')], 2_000)));
      for (const out of outcomes) expect(out.text === '' || /^HTTP\/1\.1 (200|400) /.test(out.text), out.text.slice(0, 80)).to.equal(true);
      expect((await httpFrom('127.0.3.6', server.url + '/health', 'GET')).status).to.equal(200);
      expect(await through('198.51.100.12', right)).to.equal('HTTP/1.1 200 OK');
    });
  });
});
