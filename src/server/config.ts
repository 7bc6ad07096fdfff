// Process configuration from the environment, read once at startup. Every variable of the
// specification has its default; a value that does not parse stops the start with a message that
// names the variable, rather than silently falling back to the default.
import { parseTrustedProxies } from './client-address/client-addresses.ts';
import type { LogLevel } from './logger.ts';

export const DEFAULT_ADMIN_TOKEN = 'admin-token-change-me';
export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

export type StorageBackend = 'in_memory' | 'postgres';
/** Cluster role (src/server/replication/): who writes the log and who follows it. */
export type Role = 'leader' | 'follower' | 'standby';
/**
 * Who owns the WebSocket connections (src/server/fanout/): a child process fed the published events
 * (`process`), or the matching thread itself (`inline`: every socket write on the thread that matches;
 * docs/websocket.md, "Fan-out").
 */
export type WsFanout = 'process' | 'inline';

export interface Config {
  readonly host: string;
  readonly port: number;
  readonly adminToken: string;
  readonly storageBackend: StorageBackend;
  readonly databaseUrl: string;
  readonly wsBroadcastBuffer: number;
  readonly perUserRequestsPerSecond: number;
  readonly postgresWriteBatchSize: number;
  readonly postgresWriteFlushIntervalMs: number;
  readonly postgresWriteQueueCapacity: number;
  readonly postgresWriteRetryBackoffMs: number;
  /** Replies wait for the command's batch to commit (group commit). Off by default: write-behind. */
  readonly postgresDurableAcks: boolean;
  /** A snapshot is written every this many events (0 disables snapshots). */
  readonly snapshotEveryEvents: number;
  readonly logLevel: LogLevel;
  /** ROLE: leader (default) writes the log; a follower folds it; a standby folds it and waits for the writer lock. */
  readonly role: Role;
  /**
   * ROLE was set: the process is a member of a cluster. A cluster leader stops admitting commands the
   * moment it loses its database session (it can no longer know it holds the writer lock); a process
   * without ROLE keeps today's write-behind behaviour through an outage.
   */
  readonly clustered: boolean;
  /** LEADER_URL: the leader's public URL, named in not_leader refusals (null: not configured). */
  readonly leaderUrl: string | null;
  /** FOLLOWER_POLL_INTERVAL_MS: a follower also checks the log this often, in case a notification was missed. */
  readonly followerPollIntervalMs: number;
  /** STANDBY_LOCK_POLL_MS: how often a standby tries to take the writer lock. */
  readonly standbyLockPollMs: number;
  /** Conflated public channels (l2, ticker): at most one update per market per this many ms. */
  readonly marketDataIntervalMs: number;
  /** Live standings on the public `standings` channel; off by default. */
  readonly publicStandings: boolean;
  /** WS_FANOUT: the WebSocket connections live in a fan-out child process (default) or on the matching thread. */
  readonly wsFanout: WsFanout;
  /** Fair-access limits (docs/websocket.md, "Limits"); shown on GET /api/v1/admin/state as `limits`. */
  readonly limits: Limits;
  /** The body limit of POST /api/v1/admin/users/bulk (10000 names of up to 64 characters, JSON or CSV). */
  readonly bulkProvisionBodyLimitBytes: number;
  /** METRICS_BIND_ADDR: a listener of its own for GET /metrics, without authentication (null: none). */
  readonly metricsBind: { readonly host: string; readonly port: number } | null;
  /**
   * TRUST_PROXY: the proxies in front (addresses, CIDR ranges, loopback, linklocal, uniquelocal), whose
   * X-Forwarded-For or PROXY header names the client (src/server/client-address/); empty: none, every
   * client is its TCP peer.
   */
  readonly trustProxy: readonly string[];
  /** PROXY_PROTOCOL: connections from a TRUST_PROXY peer start with a PROXY protocol v2 header. */
  readonly proxyProtocol: boolean;
}

/**
 * Every limit that protects fair access, with the variable that sets it. Field names are the JSON
 * names shown on GET /api/v1/admin/state.
 */
export interface Limits {
  /** PER_USER_REQUESTS_PER_SECOND: the per-trader budget, REST trading/account routes and WS trading ops together. */
  readonly per_user_requests_per_second: number;
  /** PER_USER_BURST: how many of them may come at once (a token bucket's capacity); at most the rate. */
  readonly per_user_burst: number;
  /** ADMISSION_QUEUE_PER_TRADER: commands of one trader waiting for the engine before 503 admission_queue_full. */
  readonly admission_queue_per_trader: number;
  /** WS_ABUSE_MULTIPLE / WS_ABUSE_SECONDS: a connection refused this many times its budget per second, this many seconds running, is closed (1008). */
  readonly ws_abuse_multiple: number;
  readonly ws_abuse_seconds: number;
  /** WS_MAX_CONNECTIONS: WebSocket connections in total (upgrade refused with 503 beyond). */
  readonly ws_max_connections: number;
  /** WS_MAX_CONNECTIONS_PER_TRADER: authenticated connections per trader (the next authenticate is refused). */
  readonly ws_max_connections_per_trader: number;
  /** WS_MAX_ANONYMOUS_PER_ADDRESS: unauthenticated connections per remote address (upgrade refused with 429 beyond). */
  readonly ws_max_anonymous_per_address: number;
  /** WS_IDLE_TIMEOUT_MS: an unauthenticated connection subscribed to nothing is closed after this long. */
  readonly ws_idle_timeout_ms: number;
  /** WS_MAX_SUBSCRIPTIONS: markets one connection may follow at once. */
  readonly ws_max_subscriptions: number;
  /** WS_SNAPSHOTS_PER_SECOND: book snapshots one connection may be sent per second. */
  readonly ws_snapshots_per_second: number;
  /** ADMIN_AUTH_FAILURES_PER_MINUTE: wrong admin tokens per remote address before 429. */
  readonly admin_auth_failures_per_minute: number;
  /** HTTP_HEADERS_TIMEOUT_MS: the whole request head must arrive within this. */
  readonly http_headers_timeout_ms: number;
  /** HTTP_REQUEST_TIMEOUT_MS: the whole request (head and body) must arrive within this. */
  readonly http_request_timeout_ms: number;
  /** HTTP_KEEP_ALIVE_TIMEOUT_MS: an idle keep-alive connection is closed after this. */
  readonly http_keep_alive_timeout_ms: number;
  /** HTTP_MAX_HEADER_BYTES: request heads larger than this get 431. */
  readonly http_max_header_bytes: number;
  /** CORS_ALLOWED_ORIGINS: origins (comma separated) allowed to call the API from a browser; empty: CORS off. */
  readonly cors_allowed_origins: readonly string[];
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

type Env = Readonly<Record<string, string | undefined>>;

function integer(env: Env, name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw.trim());
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name}=${JSON.stringify(raw)} is not an integer between ${min} and ${max}`);
  }
  return value;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const v = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  throw new ConfigError(`${name}=${JSON.stringify(raw)} is not a boolean (true/false)`);
}

function bindAddress(raw: string, name = 'BIND_ADDR'): { host: string; port: number } {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:\s]+):(\d{1,5})$/.exec(raw.trim());
  const port = m === null ? NaN : Number(m[2]);
  if (m === null || !(port >= 0 && port <= 65535)) throw new ConfigError(`${name}=${JSON.stringify(raw)} is not host:port`);
  const host = (m[1] as string).replace(/^\[|\]$/g, '');
  return { host, port };
}

const LEVELS: readonly LogLevel[] = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];

/**
 * RUST_LOG is the specification's filter, in env_logger syntax (`info`, `exchange=debug,tower_http=info`).
 * The most verbose level it names for the service (or its default) wins; LOG_LEVEL is a plain alias that
 * takes precedence when set.
 */
export function logLevelFrom(env: Env): LogLevel {
  const plain = env['LOG_LEVEL']?.trim().toLowerCase();
  if (plain !== undefined && plain !== '') {
    if (!LEVELS.includes(plain as LogLevel)) throw new ConfigError(`LOG_LEVEL=${JSON.stringify(plain)} is not one of ${LEVELS.join(', ')}`);
    return plain as LogLevel;
  }
  const filter = env['RUST_LOG']?.trim().toLowerCase();
  if (filter === undefined || filter === '') return 'info';
  const aliases: Record<string, LogLevel> = { off: 'silent', warning: 'warn' };
  let best: LogLevel | null = null;
  for (const directive of filter.split(',')) {
    const part = directive.trim();
    if (part === '') continue;
    const level = (part.includes('=') ? part.slice(part.indexOf('=') + 1) : part).trim();
    const resolved = aliases[level] ?? (LEVELS.includes(level as LogLevel) ? (level as LogLevel) : null);
    if (resolved === null) throw new ConfigError(`RUST_LOG=${JSON.stringify(filter)}: unknown level ${JSON.stringify(level)}`);
    if (best === null || LEVELS.indexOf(resolved) < LEVELS.indexOf(best)) best = resolved;
  }
  return best ?? 'info';
}

function origins(env: Env, name: string): string[] {
  const raw = env[name]?.trim() ?? '';
  if (raw === '') return [];
  const list = raw.split(',').map((o) => o.trim()).filter((o) => o !== '');
  for (const origin of list) {
    // An origin is scheme://host[:port], nothing more; '*' would make the allow-list meaningless.
    if (!/^https?:\/\/[^/\s?#]+$/.test(origin)) throw new ConfigError(`${name}=${JSON.stringify(raw)}: ${JSON.stringify(origin)} is not an origin (scheme://host[:port])`);
  }
  return list;
}

export function loadLimits(env: Env): Limits {
  const rate = integer(env, 'PER_USER_REQUESTS_PER_SECOND', 100, 1);
  const headersTimeout = integer(env, 'HTTP_HEADERS_TIMEOUT_MS', 10_000, 100, 3_600_000);
  const requestTimeout = integer(env, 'HTTP_REQUEST_TIMEOUT_MS', 30_000, 100, 3_600_000);
  if (requestTimeout < headersTimeout) throw new ConfigError(`HTTP_REQUEST_TIMEOUT_MS=${requestTimeout} must not be below HTTP_HEADERS_TIMEOUT_MS=${headersTimeout}`);
  return {
    per_user_requests_per_second: rate,
    per_user_burst: Math.min(rate, integer(env, 'PER_USER_BURST', rate, 1)),
    admission_queue_per_trader: integer(env, 'ADMISSION_QUEUE_PER_TRADER', 1024, 1),
    ws_abuse_multiple: integer(env, 'WS_ABUSE_MULTIPLE', 10, 1),
    ws_abuse_seconds: integer(env, 'WS_ABUSE_SECONDS', 3, 1, 3600),
    ws_max_connections: integer(env, 'WS_MAX_CONNECTIONS', 10_000, 1),
    ws_max_connections_per_trader: integer(env, 'WS_MAX_CONNECTIONS_PER_TRADER', 10, 1),
    ws_max_anonymous_per_address: integer(env, 'WS_MAX_ANONYMOUS_PER_ADDRESS', 128, 1),
    ws_idle_timeout_ms: integer(env, 'WS_IDLE_TIMEOUT_MS', 60_000, 100),
    ws_max_subscriptions: integer(env, 'WS_MAX_SUBSCRIPTIONS', 256, 1),
    ws_snapshots_per_second: integer(env, 'WS_SNAPSHOTS_PER_SECOND', 50, 1),
    admin_auth_failures_per_minute: integer(env, 'ADMIN_AUTH_FAILURES_PER_MINUTE', 100, 1),
    http_headers_timeout_ms: headersTimeout,
    http_request_timeout_ms: requestTimeout,
    http_keep_alive_timeout_ms: integer(env, 'HTTP_KEEP_ALIVE_TIMEOUT_MS', 10_000, 100, 3_600_000),
    http_max_header_bytes: integer(env, 'HTTP_MAX_HEADER_BYTES', 16 * 1024, 1024, 1024 * 1024),
    cors_allowed_origins: origins(env, 'CORS_ALLOWED_ORIGINS'),
  };
}

function trustedProxies(env: Env): { trustProxy: string[]; proxyProtocol: boolean } {
  const raw = env['TRUST_PROXY'] ?? '';
  let trustProxy: string[];
  try {
    trustProxy = parseTrustedProxies(raw);
  } catch (err) {
    throw new ConfigError(`TRUST_PROXY=${JSON.stringify(raw)}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const proxyProtocol = boolean(env, 'PROXY_PROTOCOL', false);
  if (proxyProtocol && trustProxy.length === 0) throw new ConfigError('PROXY_PROTOCOL=true needs TRUST_PROXY: the proxies whose PROXY header is read');
  return { trustProxy, proxyProtocol };
}

export function loadConfig(env: Env = process.env): Config {
  const { host, port } = bindAddress(env['BIND_ADDR'] ?? '0.0.0.0:8080');
  const backend = (env['STORAGE_BACKEND'] ?? 'in_memory').trim();
  if (backend !== 'in_memory' && backend !== 'postgres') throw new ConfigError(`STORAGE_BACKEND=${JSON.stringify(backend)} must be in_memory or postgres`);
  const adminToken = env['ADMIN_API_TOKEN'] ?? DEFAULT_ADMIN_TOKEN;
  if (adminToken.trim() === '') throw new ConfigError('ADMIN_API_TOKEN must not be empty');
  return {
    host,
    port,
    adminToken,
    storageBackend: backend,
    databaseUrl: env['DATABASE_URL'] ?? DEFAULT_DATABASE_URL,
    wsBroadcastBuffer: integer(env, 'WS_BROADCAST_BUFFER', 1024, 1),
    perUserRequestsPerSecond: integer(env, 'PER_USER_REQUESTS_PER_SECOND', 100, 1),
    postgresWriteBatchSize: integer(env, 'POSTGRES_WRITE_BATCH_SIZE', 1024, 1),
    postgresWriteFlushIntervalMs: integer(env, 'POSTGRES_WRITE_FLUSH_INTERVAL_MS', 25, 0),
    postgresWriteQueueCapacity: integer(env, 'POSTGRES_WRITE_QUEUE_CAPACITY', 4096, 1),
    postgresWriteRetryBackoffMs: integer(env, 'POSTGRES_WRITE_RETRY_BACKOFF_MS', 250, 0),
    postgresDurableAcks: boolean(env, 'POSTGRES_DURABLE_ACKS', false),
    snapshotEveryEvents: integer(env, 'SNAPSHOT_EVERY_EVENTS', 50_000, 0),
    logLevel: logLevelFrom(env),
    limits: loadLimits(env),
    bulkProvisionBodyLimitBytes: integer(env, 'BULK_PROVISION_BODY_LIMIT_BYTES', 4 * 1024 * 1024, 64 * 1024),
    metricsBind: env['METRICS_BIND_ADDR'] === undefined || env['METRICS_BIND_ADDR'].trim() === '' ? null : bindAddress(env['METRICS_BIND_ADDR'], 'METRICS_BIND_ADDR'),
    marketDataIntervalMs: integer(env, 'MARKET_DATA_INTERVAL_MS', 100, 10, 60_000),
    publicStandings: boolean(env, 'PUBLIC_STANDINGS', false),
    wsFanout: oneOf(env, 'WS_FANOUT', FANOUTS, 'process'),
    ...trustedProxies(env),
    ...clusterSettings(env, backend),
  };
}

const FANOUTS: readonly WsFanout[] = ['process', 'inline'];

/** One of `values` (case and surrounding blanks ignored), `fallback` when unset or blank. */
function oneOf<T extends string>(env: Env, name: string, values: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = raw.trim().toLowerCase();
  if (!values.includes(value as T)) throw new ConfigError(`${name}=${JSON.stringify(raw)} must be one of ${values.join(', ')}`);
  return value as T;
}

const ROLES: readonly Role[] = ['leader', 'follower', 'standby'];

function clusterSettings(env: Env, backend: StorageBackend): Pick<Config, 'role' | 'clustered' | 'leaderUrl' | 'followerPollIntervalMs' | 'standbyLockPollMs'> {
  const clustered = (env['ROLE'] ?? '').trim() !== '';
  const role = oneOf(env, 'ROLE', ROLES, 'leader');
  if (role !== 'leader' && backend !== 'postgres') throw new ConfigError(`ROLE=${role} follows a PostgreSQL log: it needs STORAGE_BACKEND=postgres`);
  const rawLeader = env['LEADER_URL']?.trim();
  let leaderUrl: string | null = null;
  if (rawLeader !== undefined && rawLeader !== '') {
    let parsed: URL | null = null;
    try {
      parsed = new URL(rawLeader);
    } catch {
      parsed = null;
    }
    if (parsed === null || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) throw new ConfigError(`LEADER_URL=${JSON.stringify(rawLeader)} is not an http(s) URL`);
    leaderUrl = rawLeader.replace(/\/+$/, '');
  }
  return {
    role: role as Role,
    clustered,
    leaderUrl,
    followerPollIntervalMs: integer(env, 'FOLLOWER_POLL_INTERVAL_MS', 1000, 10, 3_600_000),
    standbyLockPollMs: integer(env, 'STANDBY_LOCK_POLL_MS', 100, 10, 60_000),
  };
}
