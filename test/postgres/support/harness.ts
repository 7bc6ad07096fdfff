// Opening the PostgreSQL persistence directly (no HTTP): exchange + persistence + service, as the
// composition root wires them, and reading back what the database holds.
import pg from 'pg';
import { Exchange } from '../../../src/commands/exchange.ts';
import { canonicalJson } from '../../../src/events/canonical.ts';
import { chainHash, GENESIS_HASH } from '../../../src/events/hash.ts';
import type { ExchangeEvent } from '../../../src/events/types.ts';
import { AdmissionClock } from '../../../src/server/clock.ts';
import { loadConfig } from '../../../src/server/config.ts';
import { createLogger } from '../../../src/server/logger.ts';
import { openPostgresPersistence, type PostgresPersistence, type PostgresPersistenceOptions } from '../../../src/server/persistence/postgres/postgres-persistence.ts';
import { ExchangeService } from '../../../src/server/service.ts';
import type { Command } from '../../../src/commands/types.ts';
import type { History, Maybe } from '../../../src/server/history/history.ts';
import { checkEarlier, withEarlierOrder } from '../../../src/server/history/order-lookups.ts';

/** An answer that may come now or later, as a promise. */
export const settle = <T>(value: Maybe<T>): Promise<T> => Promise.resolve(value);

/**
 * A submission as the REST and WebSocket routes run it: its client order id looked up first (the books,
 * then the history), the lookup checked as the command is built, the earlier order carried in it.
 */
export function submitLookedUp(service: ExchangeService, history: History, traderId: string, clientOrderId: string | null | undefined, build: (time: string) => Command): Promise<ExchangeEvent> {
  const state = service.state;
  return settle(
    withEarlierOrder(state, history, traderId, clientOrderId, (lookup) =>
      service.execute((s) => {
        const earlier = checkEarlier(state, lookup);
        const command = build(s.time);
        return earlier === undefined ? command : ({ ...command, earlier_order: earlier } as Command);
      }),
    ),
  );
}

export interface Instance {
  readonly exchange: Exchange;
  readonly persistence: PostgresPersistence;
  readonly service: ExchangeService;
  close(): Promise<void>;
}

export function pgConfig(databaseUrl: string, env: Record<string, string> = {}) {
  return loadConfig({ STORAGE_BACKEND: 'postgres', DATABASE_URL: databaseUrl, LOG_LEVEL: process.env['TEST_LOG_LEVEL'] ?? 'silent', ...env });
}

/** What a test may set of the exchange and the service around it. */
export interface InstanceParts {
  /** The books' window of finished orders (a small one makes lookups go to the history). */
  readonly recentOrders?: number;
  /** The admission clock (a test's own, to stamp times it chooses). */
  readonly clock?: AdmissionClock;
}

export async function openInstance(databaseUrl: string, env: Record<string, string> = {}, options: PostgresPersistenceOptions = {}, parts: InstanceParts = {}): Promise<Instance> {
  const config = pgConfig(databaseUrl, env);
  const persistence = await openPostgresPersistence(config, createLogger(config.logLevel), options);
  const exchange = new Exchange({ log: persistence.log, ...(parts.recentOrders === undefined ? {} : { recentOrders: parts.recentOrders }) });
  try {
    await persistence.recover(exchange);
  } catch (err) {
    await persistence.close();
    throw err;
  }
  const clock = parts.clock ?? new AdmissionClock();
  if (exchange.state.time !== '') clock.advanceTo(exchange.state.time);
  const service = new ExchangeService(exchange, persistence, clock, { durableAcks: config.postgresDurableAcks });
  return {
    exchange,
    persistence,
    service,
    close: async () => {
      service.close();
      await persistence.close();
    },
  };
}

export interface StoredRow {
  readonly event: ExchangeEvent;
  readonly hash: string;
}

/**
 * Every stored event, oldest first, read with plain SELECTs (independently of the code under test),
 * checking that the query columns (seq, type, time, data) agree with the canonical record.
 */
export async function storedLog(databaseUrl: string): Promise<StoredRow[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ seq: string; type: string; time: string; data: unknown; hash: string; canonical: string }>(
      'select seq, type, time, data, hash, canonical from events_with_data order by seq',
    );
    return rows.map((r) => {
      const event = JSON.parse(r.canonical) as ExchangeEvent;
      if (canonicalJson(event) !== r.canonical) throw new Error(`stored log: seq ${r.seq}: canonical column is not canonical`);
      if (event.seq !== Number(r.seq) || event.type !== r.type || event.time !== r.time) throw new Error(`stored log: seq ${r.seq}: columns disagree with the canonical event`);
      // jsonb holds no NUL and no lone surrogate: event_data() gives U+FFFD for those, and only those.
      if (canonicalJson(r.data) !== canonicalJson(asJsonb(event.data))) throw new Error(`stored log: seq ${r.seq}: data column disagrees with the canonical event`);
      return { event, hash: r.hash };
    });
  } finally {
    await client.end();
  }
}

/** Throws unless the rows are seq 1..n without a gap or duplicate, each hash chaining from the one before. */
export function checkChain(rows: readonly StoredRow[]): void {
  let hash = GENESIS_HASH;
  rows.forEach((row, i) => {
    if (row.event.seq !== i + 1) throw new Error(`stored log: expected seq ${i + 1} at row ${i}, found ${row.event.seq}`);
    hash = chainHash(hash, row.event);
    if (row.hash !== hash) throw new Error(`stored log: hash chain broken at seq ${row.event.seq}`);
  });
}

export async function sql<R extends pg.QueryResultRow = pg.QueryResultRow>(databaseUrl: string, text: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

export { until } from '../../support/until.ts';

/** A value as jsonb keeps it: every NUL and every lone surrogate in its strings as U+FFFD. */
function asJsonb(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(/\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
  if (Array.isArray(value)) return value.map(asJsonb);
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [asJsonb(k), asJsonb(v)]));
  return value;
}
