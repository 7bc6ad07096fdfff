// Connections to PostgreSQL. Every connection gives up after CONNECT_TIMEOUT_MS, so a database that
// cannot be reached is a clear error within seconds at startup (and a retry, later), never a hang.
import pg from 'pg';

export const CONNECT_TIMEOUT_MS = 5_000;

/** The URL without its password, for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparseable DATABASE_URL)';
  }
}

export function databaseName(url: string): string {
  try {
    return decodeURIComponent(new URL(url).pathname.slice(1)) || '(default)';
  } catch {
    return '(unknown)';
  }
}

export function clientConfig(url: string, applicationName: string): pg.ClientConfig {
  return {
    connectionString: url,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    // Notices a peer that vanished without closing (a cut network) instead of waiting forever.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    application_name: applicationName,
  };
}

export function errorText(err: unknown): string {
  if (err instanceof AggregateError && err.errors.length > 0) return err.errors.map(errorText).join('; ');
  if (err instanceof Error) return err.message || err.name;
  return String(err);
}

/** Connects one client, or fails with a message that names the database and the cause. */
export async function connectClient(url: string, applicationName: string): Promise<pg.Client> {
  const client = new pg.Client(clientConfig(url, applicationName));
  // An idle connection that breaks emits 'error'; without a listener that would end the process.
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (err) {
    await client.end().catch(() => {});
    throw new Error(`cannot connect to PostgreSQL at ${redactUrl(url)}: ${errorText(err)}`, { cause: err });
  }
  return client;
}

/** SQLSTATE of a server error, if it is one. */
export function sqlState(err: unknown): string | null {
  if (typeof err === 'object' && err !== null && 'code' in err) {
    const code = (err as { code: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return null;
}
