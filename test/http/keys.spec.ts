// API keys with scopes through the real service (competition-rules.md, "Keys"): the organizer issues,
// lists and revokes a trader's keys; a trader lists its own and, with a trade key, creates read keys and
// revokes keys; rotation without downtime; expiry; revocation closing that key's sessions alone; only
// hashes of secrets in the log; when each key was last used.
import { expect } from 'chai';
import type { z } from 'zod';
import type { ApiKeySchema } from '../../src/server/http/response-schemas.ts';
import { WsTestClient } from '../ws/support/ws-test-client.ts';
import { until } from '../support/until.ts';
import { Client, expectError, TIMESTAMP, type Trader } from './support/client.ts';
import { startHttpTestServer, type HttpTestServer } from './support/http-server.ts';

type KeyBody = z.infer<typeof ApiKeySchema>;

interface Issued {
  readonly key: KeyBody;
  readonly api_key: string;
}

function closedOf(ws: WsTestClient): Promise<{ code: number; reason: string }> {
  return new Promise((resolve) => ws.ws.once('close', (code, reason) => resolve({ code, reason: String(reason) })));
}


describe('HTTP API keys with scopes', function () {
  this.timeout(30_000);
  let server: HttpTestServer;
  let c: Client;
  let alice: Trader;
  const wsUrl = (): string => `${server.url.replace('http', 'ws')}/ws`;
  const keysPath = (t: Trader): string => `/api/v1/admin/users/${t.trader_id}/keys`;

  beforeEach(async () => {
    server = await startHttpTestServer();
    c = new Client(server.url);
    alice = await c.provision('alice');
  });
  afterEach(() => server.close());

  it('the organizer issues a key with a scope, label and expiry (the secret shown once), lists keys without secrets, revokes one', async () => {
    const expires = new Date(Date.now() + 86_400_000).toISOString();
    const r = await c.admin<Issued>('POST', keysPath(alice), { scope: 'read', label: ' dashboard ', expires_at: expires });
    expect(r.status).to.equal(201);
    expect(r.body.api_key).to.match(/^exch_[0-9a-f]{32}$/);
    expect(r.body.key).to.deep.include({ scope: 'read', label: 'dashboard', last_used_at: null, primary: false });
    expect(r.body.key.expires_at).to.match(TIMESTAMP);
    expect(Date.parse(r.body.key.expires_at as string)).to.equal(Date.parse(expires));
    const list = await c.admin<KeyBody[]>('GET', keysPath(alice));
    expect(list.body.map((k) => [k.scope, k.primary, k.label])).to.deep.equal([
      ['trade', true, null],
      ['read', false, 'dashboard'],
    ]);
    expect(JSON.stringify(list.body)).to.not.include(r.body.api_key);
    expect((await c.trader(r.body.api_key, 'GET', '/api/v1/positions')).status).to.equal(200);
    const revoked = await c.admin<{ key: KeyBody }>('DELETE', `${keysPath(alice)}/${r.body.key.key_id}`);
    expect(revoked.status).to.equal(200);
    expect(revoked.body.key.key_id).to.equal(r.body.key.key_id);
    expectError(await c.trader(r.body.api_key, 'GET', '/api/v1/positions'), 401, 'invalid_api_key');
    expect((await c.trader(alice.api_key, 'GET', '/api/v1/positions')).status).to.equal(200);
    expectError(await c.admin('DELETE', `${keysPath(alice)}/${r.body.key.key_id}`), 404, 'key_not_found');
    expectError(await c.admin('GET', '/api/v1/admin/users/00000000-0000-4000-8000-000000000000/keys'), 404, 'trader_not_found');
    expectError(await c.admin('POST', keysPath(alice), { scope: 'admin' }), 400, 'invalid_request', /scope/);
    expectError(await c.admin('POST', keysPath(alice), { scope: 'read', expires_at: '2001-01-01T00:00:00Z' }), 400, 'invalid_expires_at');
    expectError(await c.admin('POST', keysPath(alice), { scope: 'read', label: 'x'.repeat(65) }), 400, 'invalid_key_label');
  });

  it('a trader lists its keys with any key; with a trade key creates a read key for itself and revokes its keys', async () => {
    const created = await c.trader<Issued>(alice.api_key, 'POST', '/api/v1/keys', { label: 'notebook' });
    expect(created.status).to.equal(201);
    expect(created.body.key).to.deep.include({ scope: 'read', label: 'notebook', primary: false });
    const read = created.body.api_key;
    const mine = await c.trader<KeyBody[]>(read, 'GET', '/api/v1/keys');
    expect(mine.status).to.equal(200);
    expect(mine.body.map((k) => k.scope)).to.deep.equal(['trade', 'read']);
    // A read key may not make keys or revoke them; a trade key is the organizer's to give.
    expectError(await c.trader(read, 'POST', '/api/v1/keys', {}), 403, 'insufficient_scope', 'key may only read');
    expectError(await c.trader(read, 'DELETE', `/api/v1/keys/${created.body.key.key_id}`), 403, 'insufficient_scope');
    expectError(await c.trader(alice.api_key, 'POST', '/api/v1/keys', { scope: 'trade' }), 403, 'insufficient_scope', /read keys only/);
    // Another trader's key is not the caller's to revoke.
    const bob = await c.provision('bob');
    expectError(await c.trader(bob.api_key, 'DELETE', `/api/v1/keys/${created.body.key.key_id}`), 404, 'key_not_found');
    expect((await c.trader(alice.api_key, 'DELETE', `/api/v1/keys/${created.body.key.key_id}`)).status).to.equal(200);
    expectError(await c.trader(read, 'GET', '/api/v1/keys'), 401, 'invalid_api_key');
  });

  it('rotation without downtime: a second trade key works beside the first until the first is revoked; its sessions close then, the new key\'s stay', async () => {
    const second = await c.admin<Issued>('POST', keysPath(alice), { scope: 'trade', label: 'bot v2' });
    await c.market({ market_id: 'BTC-USD' });
    const oldWs = await WsTestClient.open(wsUrl());
    const newWs = await WsTestClient.open(wsUrl());
    try {
      oldWs.send({ op: 'authenticate', api_key: alice.api_key });
      newWs.send({ op: 'authenticate', api_key: second.body.api_key });
      expect(await oldWs.nextType('authenticated')).to.deep.include({ scope: 'trade' });
      expect(await newWs.nextType('authenticated')).to.deep.include({ scope: 'trade', key_id: second.body.key.key_id });
      // Both trade in between.
      expect((await c.order(alice.api_key, 'BTC-USD', 'BUY', 90, 1)).status).to.equal(201);
      expect((await c.order(second.body.api_key, 'BTC-USD', 'BUY', 91, 1)).status).to.equal(201);
      const primary = (await c.admin<KeyBody[]>('GET', keysPath(alice))).body.find((k) => k.primary) as KeyBody;
      const closed = closedOf(oldWs);
      expect((await c.admin('DELETE', `${keysPath(alice)}/${primary.key_id}`)).status).to.equal(200);
      expect(await closed).to.deep.equal({ code: 4001, reason: 'api key revoked' });
      expectError(await c.order(alice.api_key, 'BTC-USD', 'BUY', 92, 1), 401, 'invalid_api_key');
      // The new key's session stays open and trades on.
      const ack = await newWs.request({ op: 'submit_order', request_id: 'after', market: 'BTC-USD', side: 'BUY', price: 93, quantity: 1 });
      expect(ack.type, JSON.stringify(ack)).to.equal('ack');
    } finally {
      await oldWs.close();
      await newWs.close();
    }
  });

  it('the rotate route keeps its meaning: the primary key stops at once, issued keys and their sessions stay', async () => {
    const read = await c.trader<Issued>(alice.api_key, 'POST', '/api/v1/keys', {});
    const readWs = await WsTestClient.open(wsUrl());
    const primaryWs = await WsTestClient.open(wsUrl());
    try {
      readWs.send({ op: 'authenticate', api_key: read.body.api_key });
      primaryWs.send({ op: 'authenticate', api_key: alice.api_key });
      await readWs.nextType('authenticated');
      await primaryWs.nextType('authenticated');
      const closed = closedOf(primaryWs);
      const rotated = await c.admin<{ profile: Trader }>('POST', `/api/v1/admin/users/${alice.trader_id}/rotate-key`);
      expect(await closed).to.deep.equal({ code: 4001, reason: 'api key rotated' });
      expectError(await c.trader(alice.api_key, 'GET', '/api/v1/user'), 401, 'invalid_api_key');
      expect((await c.trader(rotated.body.profile.api_key, 'GET', '/api/v1/user')).status).to.equal(200);
      expect((await c.trader(read.body.api_key, 'GET', '/api/v1/user')).status).to.equal(200);
      readWs.send({ op: 'ping', request_id: 'still' });
      expect(await readWs.nextType('pong')).to.deep.include({ request_id: 'still' });
      const keys = (await c.admin<KeyBody[]>('GET', keysPath(alice))).body;
      expect(keys.map((k) => [k.scope, k.primary])).to.deep.equal([
        ['read', false],
        ['trade', true],
      ]);
    } finally {
      await readWs.close();
      await primaryWs.close();
    }
  });

  it('a key past its expires_at is refused as an unknown key is (401), and its sessions close', async () => {
    const expires = new Date(Date.now() + 1500).toISOString();
    const r = await c.admin<Issued>('POST', keysPath(alice), { scope: 'trade', expires_at: expires });
    expect((await c.trader(r.body.api_key, 'GET', '/api/v1/user')).status).to.equal(200);
    const ws = await WsTestClient.open(wsUrl());
    try {
      ws.send({ op: 'authenticate', api_key: r.body.api_key });
      await ws.nextType('authenticated');
      const closed = closedOf(ws);
      expect(await closed).to.deep.equal({ code: 4001, reason: 'api key expired' });
      expect(Date.now()).to.be.at.least(Date.parse(expires));
      expectError(await c.trader(r.body.api_key, 'GET', '/api/v1/user'), 401, 'invalid_api_key', 'invalid API key');
      const again = await WsTestClient.open(wsUrl());
      try {
        again.send({ op: 'authenticate', api_key: r.body.api_key });
        expect(await again.nextType('error')).to.include({ code: 'invalid_api_key' });
      } finally {
        await again.close();
      }
      // The primary key never expires.
      expect((await c.trader(alice.api_key, 'GET', '/api/v1/user')).status).to.equal(200);
    } finally {
      await ws.close();
    }
  });

  it('last_used_at follows the key\'s uses (REST and WebSocket), to the second; unused keys show null', async () => {
    const r = await c.admin<Issued>('POST', keysPath(alice), { scope: 'read' });
    expect(r.body.key.last_used_at).to.equal(null);
    const before = Date.now();
    await c.trader(r.body.api_key, 'GET', '/api/v1/positions');
    const keys = (await c.admin<KeyBody[]>('GET', keysPath(alice))).body;
    const used = keys.find((k) => k.key_id === r.body.key.key_id) as KeyBody;
    expect(used.last_used_at).to.match(TIMESTAMP);
    expect(Date.parse(used.last_used_at as string)).to.be.within(before - 1, Date.now() + 1);
    // The primary key is not used by the admin's reads: still never used.
    expect(keys.find((k) => k.primary)?.last_used_at).to.equal(null);
    const ws = await WsTestClient.open(wsUrl());
    try {
      ws.send({ op: 'authenticate', api_key: alice.api_key });
      await ws.nextType('authenticated');
      await until('the WebSocket use recorded', async () => (await c.admin<KeyBody[]>('GET', keysPath(alice))).body.find((k) => k.primary)?.last_used_at !== null);
    } finally {
      await ws.close();
    }
  });

  it('the log holds only the hashes of secrets: no key issued, rotated or provisioned appears in the events', async () => {
    const issued = await c.admin<Issued>('POST', keysPath(alice), { scope: 'trade' });
    const own = await c.trader<Issued>(alice.api_key, 'POST', '/api/v1/keys', {});
    const rotated = await c.admin<{ profile: Trader }>('POST', `/api/v1/admin/users/${alice.trader_id}/rotate-key`);
    const log = await c.request<string>('GET', '/api/v1/admin/events', { admin: true });
    for (const secret of [alice.api_key, issued.body.api_key, own.body.api_key, rotated.body.profile.api_key]) {
      expect(log.body).to.not.include(secret);
      expect(log.body).to.not.include(secret.slice(5));
    }
    expect(log.body).to.include('"type":"ApiKeyIssued"');
  });

  it('a trader holds at most 20 keys: one more is 409 too_many_keys until one is revoked', async () => {
    for (let i = 1; i < 20; i++) expect((await c.admin('POST', keysPath(alice), { scope: 'read' })).status).to.equal(201);
    expectError(await c.admin('POST', keysPath(alice), { scope: 'read' }), 409, 'too_many_keys');
    expectError(await c.trader(alice.api_key, 'POST', '/api/v1/keys', {}), 409, 'too_many_keys');
    const last = (await c.trader<KeyBody[]>(alice.api_key, 'GET', '/api/v1/keys')).body.at(-1) as KeyBody;
    expect((await c.trader(alice.api_key, 'DELETE', `/api/v1/keys/${last.key_id}`)).status).to.equal(200);
    expect((await c.trader(alice.api_key, 'POST', '/api/v1/keys', {})).status).to.equal(201);
  });
});
