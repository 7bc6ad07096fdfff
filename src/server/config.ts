// Process configuration from the environment, read once at startup. Every variable of the
// specification has its default; a value that does not parse stops the start with a message that
// names the variable, rather than silently falling back to the default.

export const DEFAULT_ADMIN_TOKEN = 'admin-token-change-me';
export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

export type StorageBackend = 'in_memory' | 'postgres';
export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';

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

function bindAddress(raw: string): { host: string; port: number } {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:\s]+):(\d{1,5})$/.exec(raw.trim());
  const port = m === null ? NaN : Number(m[2]);
  if (m === null || !(port >= 0 && port <= 65535)) throw new ConfigError(`BIND_ADDR=${JSON.stringify(raw)} is not host:port`);
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
    postgresWriteBatchSize: integer(env, 'POSTGRES_WRITE_BATCH_SIZE', 128, 1),
    postgresWriteFlushIntervalMs: integer(env, 'POSTGRES_WRITE_FLUSH_INTERVAL_MS', 25, 0),
    postgresWriteQueueCapacity: integer(env, 'POSTGRES_WRITE_QUEUE_CAPACITY', 4096, 1),
    postgresWriteRetryBackoffMs: integer(env, 'POSTGRES_WRITE_RETRY_BACKOFF_MS', 250, 0),
    postgresDurableAcks: boolean(env, 'POSTGRES_DURABLE_ACKS', false),
    snapshotEveryEvents: integer(env, 'SNAPSHOT_EVERY_EVENTS', 100_000, 0),
    logLevel: logLevelFrom(env),
  };
}
