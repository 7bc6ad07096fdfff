// The fair-access limits are settings: each read from its variable, defaults that refuse nothing the
// base specification sends, and a value that does not parse stops the start naming the variable.
import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../src/server/config.ts';

describe('config: fair-access limits', () => {
  it('reads every limit variable', () => {
    const c = loadConfig({
      PER_USER_REQUESTS_PER_SECOND: '50',
      PER_USER_BURST: '10',
      ADMISSION_QUEUE_PER_TRADER: '7',
      WS_ABUSE_MULTIPLE: '4',
      WS_ABUSE_SECONDS: '9',
      WS_MAX_CONNECTIONS: '100',
      WS_MAX_CONNECTIONS_PER_TRADER: '3',
      WS_MAX_ANONYMOUS_PER_ADDRESS: '5',
      WS_IDLE_TIMEOUT_MS: '1500',
      WS_MAX_SUBSCRIPTIONS: '12',
      WS_SNAPSHOTS_PER_SECOND: '6',
      ADMIN_AUTH_FAILURES_PER_MINUTE: '8',
      HTTP_HEADERS_TIMEOUT_MS: '2000',
      HTTP_REQUEST_TIMEOUT_MS: '4000',
      HTTP_KEEP_ALIVE_TIMEOUT_MS: '3000',
      HTTP_MAX_HEADER_BYTES: '8192',
      CORS_ALLOWED_ORIGINS: 'https://a.example, http://localhost:3000',
    });
    expect(c.limits).to.deep.equal({
      per_user_requests_per_second: 50,
      per_user_burst: 10,
      admission_queue_per_trader: 7,
      ws_abuse_multiple: 4,
      ws_abuse_seconds: 9,
      ws_max_connections: 100,
      ws_max_connections_per_trader: 3,
      ws_max_anonymous_per_address: 5,
      ws_idle_timeout_ms: 1500,
      ws_max_subscriptions: 12,
      ws_snapshots_per_second: 6,
      admin_auth_failures_per_minute: 8,
      http_headers_timeout_ms: 2000,
      http_request_timeout_ms: 4000,
      http_keep_alive_timeout_ms: 3000,
      http_max_header_bytes: 8192,
      cors_allowed_origins: ['https://a.example', 'http://localhost:3000'],
    });
  });

  it('the burst defaults to the rate and never exceeds it (the one-second rule)', () => {
    expect(loadConfig({ PER_USER_REQUESTS_PER_SECOND: '40' }).limits.per_user_burst).to.equal(40);
    expect(loadConfig({ PER_USER_REQUESTS_PER_SECOND: '40', PER_USER_BURST: '400' }).limits.per_user_burst).to.equal(40);
  });

  it('stops on a value that does not parse, naming the variable', () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ PER_USER_BURST: '0' }, /^PER_USER_BURST=/],
      [{ WS_MAX_CONNECTIONS_PER_TRADER: 'ten' }, /^WS_MAX_CONNECTIONS_PER_TRADER=/],
      [{ WS_IDLE_TIMEOUT_MS: '-1' }, /^WS_IDLE_TIMEOUT_MS=/],
      [{ HTTP_HEADERS_TIMEOUT_MS: '5' }, /^HTTP_HEADERS_TIMEOUT_MS=/],
      [{ HTTP_HEADERS_TIMEOUT_MS: '5000', HTTP_REQUEST_TIMEOUT_MS: '1000' }, /^HTTP_REQUEST_TIMEOUT_MS=1000 must not be below HTTP_HEADERS_TIMEOUT_MS=5000/],
      [{ CORS_ALLOWED_ORIGINS: '*' }, /^CORS_ALLOWED_ORIGINS=.*is not an origin/],
      [{ CORS_ALLOWED_ORIGINS: 'https://a.example/path' }, /^CORS_ALLOWED_ORIGINS=/],
      [{ ADMIN_AUTH_FAILURES_PER_MINUTE: '1.5' }, /^ADMIN_AUTH_FAILURES_PER_MINUTE=/],
    ];
    for (const [env, message] of cases) expect(() => loadConfig(env), JSON.stringify(env)).to.throw(ConfigError, message);
  });
});
