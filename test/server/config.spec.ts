import { expect } from 'chai';
import { ConfigError, DEFAULT_ADMIN_TOKEN, loadConfig, logLevelFrom } from '../../src/server/config.ts';

describe('server: configuration from the environment', () => {
  it('has the specification defaults', () => {
    const c = loadConfig({});
    expect(c).to.deep.include({
      host: '0.0.0.0',
      port: 8080,
      adminToken: DEFAULT_ADMIN_TOKEN,
      storageBackend: 'in_memory',
      wsBroadcastBuffer: 1024,
      perUserRequestsPerSecond: 100,
      postgresWriteBatchSize: 1024,
      postgresWriteFlushIntervalMs: 25,
      postgresWriteQueueCapacity: 4096,
      postgresWriteRetryBackoffMs: 250,
      postgresDurableAcks: false,
      logLevel: 'info',
      marketDataIntervalMs: 100,
      publicStandings: false,
      snapshotEveryEvents: 50_000,
      trustProxy: [],
      proxyProtocol: false,
    });
  });

  it('reads every variable', () => {
    const c = loadConfig({
      BIND_ADDR: '[::1]:9000',
      ADMIN_API_TOKEN: 's3cret',
      STORAGE_BACKEND: 'postgres',
      DATABASE_URL: 'postgres://u@h:1/d',
      WS_BROADCAST_BUFFER: '8',
      PER_USER_REQUESTS_PER_SECOND: '5',
      POSTGRES_WRITE_BATCH_SIZE: '64',
      POSTGRES_WRITE_FLUSH_INTERVAL_MS: '10',
      POSTGRES_WRITE_QUEUE_CAPACITY: '100',
      POSTGRES_WRITE_RETRY_BACKOFF_MS: '50',
      POSTGRES_DURABLE_ACKS: 'true',
      SNAPSHOT_EVERY_EVENTS: '0',
      RUST_LOG: 'debug',
      MARKET_DATA_INTERVAL_MS: '250',
      PUBLIC_STANDINGS: 'true',
    });
    expect(c).to.deep.include({ marketDataIntervalMs: 250, publicStandings: true });
    expect(c).to.deep.include({ host: '::1', port: 9000, adminToken: 's3cret', storageBackend: 'postgres', databaseUrl: 'postgres://u@h:1/d', wsBroadcastBuffer: 8, perUserRequestsPerSecond: 5 });
    expect(c).to.deep.include({ postgresWriteBatchSize: 64, postgresWriteFlushIntervalMs: 10, postgresWriteQueueCapacity: 100, postgresWriteRetryBackoffMs: 50, postgresDurableAcks: true, snapshotEveryEvents: 0, logLevel: 'debug' });
  });

  it('stops on a value that does not parse, naming the variable (no silent default)', () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ BIND_ADDR: 'nonsense' }, /^BIND_ADDR=/],
      [{ BIND_ADDR: '1.2.3.4:99999' }, /^BIND_ADDR=/],
      [{ STORAGE_BACKEND: 'mysql' }, /^STORAGE_BACKEND=/],
      [{ PER_USER_REQUESTS_PER_SECOND: '10x' }, /^PER_USER_REQUESTS_PER_SECOND=/],
      [{ PER_USER_REQUESTS_PER_SECOND: '0' }, /^PER_USER_REQUESTS_PER_SECOND=/],
      [{ WS_BROADCAST_BUFFER: '-1' }, /^WS_BROADCAST_BUFFER=/],
      [{ POSTGRES_WRITE_BATCH_SIZE: '1.5' }, /^POSTGRES_WRITE_BATCH_SIZE=/],
      [{ POSTGRES_DURABLE_ACKS: 'maybe' }, /^POSTGRES_DURABLE_ACKS=/],
      [{ RUST_LOG: 'loud' }, /^RUST_LOG=/],
      [{ LOG_LEVEL: 'chatty' }, /^LOG_LEVEL=/],
      [{ ADMIN_API_TOKEN: '  ' }, /^ADMIN_API_TOKEN/],
      [{ METRICS_BIND_ADDR: '9464' }, /^METRICS_BIND_ADDR=/],
      [{ MARKET_DATA_INTERVAL_MS: '5' }, /^MARKET_DATA_INTERVAL_MS=/],
      [{ PUBLIC_STANDINGS: 'sometimes' }, /^PUBLIC_STANDINGS=/],
      [{ WS_FANOUT: 'thread' }, /^WS_FANOUT=/],
    ];
    for (const [env, message] of cases) expect(() => loadConfig(env), JSON.stringify(env)).to.throw(ConfigError, message);
  });

  it('WS_FANOUT: a fan-out process by default; inline keeps the gateway on the matching thread', () => {
    expect(loadConfig({}).wsFanout).to.equal('process');
    expect(loadConfig({ WS_FANOUT: ' ' }).wsFanout).to.equal('process');
    expect(loadConfig({ WS_FANOUT: 'inline' }).wsFanout).to.equal('inline');
    expect(loadConfig({ WS_FANOUT: 'PROCESS' }).wsFanout).to.equal('process');
  });

  it('METRICS_BIND_ADDR: unset means no listener of its own; host:port is parsed as BIND_ADDR is', () => {
    expect(loadConfig({}).metricsBind).to.equal(null);
    expect(loadConfig({ METRICS_BIND_ADDR: ' ' }).metricsBind).to.equal(null);
    expect(loadConfig({ METRICS_BIND_ADDR: '10.0.0.5:9464' }).metricsBind).to.deep.equal({ host: '10.0.0.5', port: 9464 });
    expect(loadConfig({ METRICS_BIND_ADDR: '[::1]:9464' }).metricsBind).to.deep.equal({ host: '::1', port: 9464 });
  });

  it('reads RUST_LOG filters: the most verbose level named wins; LOG_LEVEL overrides', () => {
    expect(logLevelFrom({ RUST_LOG: 'exchange=debug,tower_http=info' })).to.equal('debug');
    expect(logLevelFrom({ RUST_LOG: 'warn' })).to.equal('warn');
    expect(logLevelFrom({ RUST_LOG: 'off' })).to.equal('silent');
    expect(logLevelFrom({ RUST_LOG: 'trace', LOG_LEVEL: 'error' })).to.equal('error');
    expect(logLevelFrom({})).to.equal('info');
  });
});
