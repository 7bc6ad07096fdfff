// Public routes, docs, and what the transport refuses: unknown routes, wrong methods, oversize and
// malformed bodies, all as JSON errors.
import { expect } from 'chai';
import { request as httpRequest } from 'node:http';
import { Client, expectError, TIMESTAMP } from './support/client.ts';
import { startHttpTestServer, type HttpTestServer } from './support/http-server.ts';

describe('HTTP public routes and transport', () => {
  let server: HttpTestServer;
  let c: Client;
  let key: string;

  before(async () => {
    server = await startHttpTestServer();
    c = new Client(server.url);
    key = (await c.provision('p')).api_key;
  });
  after(() => server.close());

  it('GET /health: status ok, service exchange, now, persistence', async () => {
    const r = await c.request<Record<string, unknown>>('GET', '/health');
    expect(r.status).to.equal(200);
    expect(Object.keys(r.body)).to.deep.equal(['status', 'service', 'now', 'persistence']);
    expect(r.body).to.include({ status: 'ok', service: 'exchange' });
    expect(r.body['now']).to.match(TIMESTAMP);
    expect(r.body['persistence']).to.deep.equal({ backend: 'in_memory', mode: 'disabled', queue_depth: 0, last_error: null });
  });

  it('GET /health is degraded while persistence is retrying, backpressured or stopped', async () => {
    const persistence = server.context.service.persistence;
    const original = persistence.status.bind(persistence);
    try {
      for (const mode of ['retrying', 'backpressured', 'stopped'] as const) {
        persistence.status = () => ({ ...original(), backend: 'postgres', mode, last_error: mode === 'retrying' ? 'connection refused' : null });
        const r = await c.request<{ status: string; persistence: { mode: string; last_error: string | null } }>('GET', '/health');
        expect(r.body.status).to.equal('degraded');
        expect(r.body.persistence.mode).to.equal(mode);
      }
      persistence.status = () => ({ ...original(), backend: 'postgres', mode: 'ok' });
      expect((await c.request<{ status: string }>('GET', '/health')).body.status).to.equal('ok');
    } finally {
      persistence.status = original;
    }
  });

  it('GET /api/v1/markets lists markets by market_id, without auth', async () => {
    await c.market({ market_id: 'ZZ-USD' });
    await c.market({ market_id: 'AA-USD' });
    const r = await c.request<{ market_id: string }[]>('GET', '/api/v1/markets');
    expect(r.status).to.equal(200);
    expect(r.body.map((m) => m.market_id)).to.deep.equal(['AA-USD', 'ZZ-USD']);
  });

  it('an unknown route is 404 JSON, a wrong method 405 JSON with Allow', async () => {
    expectError(await c.request('GET', '/api/v1/nothing'), 404, 'not_found', 'no such route: GET /api/v1/nothing');
    expectError(await c.request('GET', '/nothing'), 404, 'not_found');
    // `/` itself is the dashboard.
    const page = await c.request('GET', '/');
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-type')).to.match(/^text\/html/);
    const wrong = await c.request('PUT', '/api/v1/orders', { apiKey: key });
    expectError(wrong, 405, 'method_not_allowed', 'method PUT not allowed on /api/v1/orders; allowed: POST, DELETE');
    expect(wrong.headers.get('allow')).to.equal('POST, DELETE');
    expect((await c.request('POST', '/api/v1/orders/3f2b7a3e-8f5e-4d7c-9a51-1c2d3e4f5a6b')).headers.get('allow')).to.equal('PATCH, DELETE, GET, HEAD');
  });

  it('a body over 64 KiB is 413 JSON; exactly 64 KiB is read', async () => {
    const big = JSON.stringify({ market: 'AA-USD', side: 'BUY', price: 1, quantity: 1, pad: 'x'.repeat(64 * 1024) });
    expectError(await c.request('POST', '/api/v1/orders', { apiKey: key, raw: big }), 413, 'body_too_large', 'request body larger than 64 KiB');
    const head = JSON.stringify({ market: 'AA-USD', side: 'BUY', price: 1, quantity: 1, pad: '' });
    const exact = head.replace('"pad":""', `"pad":"${'x'.repeat(64 * 1024 - head.length)}"`);
    expect(Buffer.byteLength(exact)).to.equal(64 * 1024);
    const r = await c.request('POST', '/api/v1/orders', { apiKey: key, raw: exact });
    expect(r.status).to.equal(201);
  });

  it('a body over 64 KiB without Content-Length (chunked) is 413 too', async () => {
    const url = new URL(server.url);
    const reply = await new Promise<{ status: number; code: string | undefined; body: string }>((resolve, reject) => {
      const req = httpRequest({ host: url.hostname, port: url.port, method: 'POST', path: '/api/v1/orders', headers: { 'x-api-key': key, 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, code: res.headers['x-error-code'] as string | undefined, body }));
      });
      req.on('error', reject);
      for (let i = 0; i < 20; i++) req.write('x'.repeat(8 * 1024));
      req.end();
    });
    expect(reply.status).to.equal(413);
    expect(reply.code).to.equal('body_too_large');
    expect(JSON.parse(reply.body)).to.deep.equal({ error: 'request body larger than 64 KiB' });
  });

  it('malformed JSON is 400 JSON on every body route; JSON without a JSON content type is accepted', async () => {
    expectError(await c.request('POST', '/api/v1/admin/users', { admin: true, raw: '{"username":' }), 400, 'invalid_request', /^malformed JSON body: /);
    const r = await c.request('POST', '/api/v1/admin/users', { admin: true, raw: '{"username":"curl-user"}', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(r.status).to.equal(201);
  });

  it('a malformed percent-encoding in the path is 400 JSON', async () => {
    expectError(await c.request('DELETE', '/api/v1/orders/%E0%A4%A', { apiKey: key }), 400, 'invalid_request');
  });

  it('/docs serves Swagger UI from the package, /api-doc/openapi.json the document', async () => {
    const page = await c.request<string>('GET', '/docs');
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-type')).to.match(/^text\/html/);
    expect(page.body).to.include('/docs/swagger-ui-bundle.js').and.not.include('://');
    const bundle = await fetch(`${server.url}/docs/swagger-ui-bundle.js`);
    expect(bundle.status).to.equal(200);
    expect((await bundle.text()).length).to.be.greaterThan(100_000);
    const init = await c.request<string>('GET', '/docs/swagger-initializer.js');
    expect(init.body).to.include('/api-doc/openapi.json');
    expect((await c.request('GET', '/docs/swagger-ui.css')).status).to.equal(200);
    expectError(await c.request('GET', '/docs/secrets.txt'), 404, 'not_found');
    const doc = await c.request<{ openapi: string }>('GET', '/api-doc/openapi.json');
    expect(doc.status).to.equal(200);
    expect(doc.body.openapi).to.equal('3.1.0');
  });

  it('a request Node cannot parse (huge headers, a broken request line) gets a JSON error too', async () => {
    const huge = await c.request('GET', '/api/v1/user', { apiKey: 'x'.repeat(40_000) });
    expect(huge.status).to.equal(431);
    expect(huge.body).to.deep.equal({ error: 'request headers too large' });
    const { connect } = await import('node:net');
    const url = new URL(c.url);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname, () => socket.write('NOT AN HTTP REQUEST\r\n\r\n'));
      let text = '';
      socket.on('data', (d: Buffer) => (text += d.toString()));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(raw).to.match(/^HTTP\/1\.1 400 /);
    expect(raw).to.include('{"error":"malformed HTTP request"}');
  });
});
