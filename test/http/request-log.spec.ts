// One structured log line per request at debug level (RUST_LOG=debug), none at the default info.
import { expect } from 'chai';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { loadConfig } from '../../src/server/config.ts';
import { Client } from './support/client.ts';
import { startHttpTestServer } from './support/http-server.ts';

function capture(level: string): { lines: Record<string, unknown>[]; logger: pino.Logger } {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n')) if (line !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: pino({ level }, sink) };
}

describe('HTTP request log', () => {
  it('RUST_LOG=debug logs one JSON line per request, whichever way it was routed', async () => {
    const level = loadConfig({ RUST_LOG: 'exchange=debug,tower_http=info' }).logLevel;
    expect(level).to.equal('debug');
    const { lines, logger } = capture(level);
    const server = await startHttpTestServer({}, logger);
    try {
      const c = new Client(server.url);
      await c.request('GET', '/health');
      await c.request('GET', '/api/v1/positions');
      await c.request('DELETE', '/api/v1/admin/markets/BTC-USD', { admin: true });
      const requests = lines.filter((l) => l['msg'] === 'request');
      expect(requests.map((l) => [l['method'], l['path'], l['status'], l['code']])).to.deep.equal([
        ['GET', '/health', 200, undefined],
        ['GET', '/api/v1/positions', 401, 'missing_api_key'],
        ['DELETE', '/api/v1/admin/markets/BTC-USD', 404, 'market_not_configured'],
      ]);
      expect(requests.every((l) => typeof l['ms'] === 'number' && l['level'] === 20)).to.equal(true);
    } finally {
      await server.close();
    }
  });

  it('the default level (info) logs no request lines', async () => {
    const { lines, logger } = capture(loadConfig({}).logLevel);
    const server = await startHttpTestServer({}, logger);
    try {
      await new Client(server.url).request('GET', '/health');
      expect(lines.filter((l) => l['msg'] === 'request')).to.deep.equal([]);
    } finally {
      await server.close();
    }
  });

  it('no API key is ever logged, at the most verbose level: not on provisioning, bulk, rotation, use or refusal', async () => {
    const { lines, logger } = capture('trace');
    const server = await startHttpTestServer({}, logger);
    const keys: string[] = [];
    try {
      const c = new Client(server.url);
      const one = await c.provision('logged-one');
      keys.push(one.api_key);
      const bulk = await c.admin<{ profiles: { trader_id: string; api_key: string }[] }>('POST', '/api/v1/admin/users/bulk', ['logged-two', 'logged-three']);
      keys.push(...bulk.body.profiles.map((p) => p.api_key));
      const rotated = await c.admin<{ profile: { api_key: string } }>('POST', `/api/v1/admin/users/${one.trader_id}/rotate-key`);
      keys.push(rotated.body.profile.api_key);
      await c.trader(one.api_key, 'GET', '/api/v1/user');
      await c.trader(rotated.body.profile.api_key, 'GET', '/api/v1/user');
      await c.admin('POST', `/api/v1/admin/users/${(bulk.body.profiles[0] as { trader_id: string }).trader_id}/disable`);
      await c.trader((bulk.body.profiles[0] as { api_key: string }).api_key, 'GET', '/api/v1/user');
    } finally {
      await server.close();
    }
    expect(lines.length).to.be.greaterThan(5);
    const text = JSON.stringify(lines);
    for (const key of keys) expect(text).to.not.include(key);
    expect(text).to.not.include('exch_');
  });
});
