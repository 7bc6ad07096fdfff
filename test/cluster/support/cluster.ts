// Cluster nodes for tests: real child processes (`node src/server/main.ts`) with a ROLE, over one
// PostgreSQL log, and the reads a test compares between them.
import { until } from '../../postgres/support/harness.ts';
import { call, PROCESS_ADMIN_TOKEN, spawnServer, type ServerProcess } from '../../postgres/support/server-process.ts';

export const ADMIN = { admin: PROCESS_ADMIN_TOKEN };

export interface Health {
  readonly status: string;
  readonly role: string;
  readonly admitting: boolean;
  readonly replication?: { seq: number; head_seq: number; lag_events: number; lag_ms: number; fenced?: string };
}

export function nodeEnv(databaseUrl: string, role: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    STORAGE_BACKEND: 'postgres',
    DATABASE_URL: databaseUrl,
    ROLE: role,
    LEADER_URL: 'http://leader.example:8080',
    PER_USER_REQUESTS_PER_SECOND: '100000',
    FOLLOWER_POLL_INTERVAL_MS: '200',
    ...extra,
  };
}

export function spawnNode(databaseUrl: string, role: string, extra: Record<string, string> = {}): Promise<ServerProcess> {
  return spawnServer(nodeEnv(databaseUrl, role, extra));
}

export async function health(base: string): Promise<Health> {
  return (await call<Health>(base, 'GET', '/health')).body;
}

export async function stateHash(base: string): Promise<{ seq: number; state_hash: string }> {
  const r = await call<{ seq: number; state_hash: string }>(base, 'GET', '/api/v1/admin/state-hash', ADMIN);
  if (r.status !== 200) throw new Error(`state-hash: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

/** Waits until the node at base holds exactly seq. */
export async function reachSeq(base: string, seq: number, timeoutMs = 15_000): Promise<void> {
  await until(`${base} to reach seq ${seq}`, async () => (await stateHash(base)).seq === seq, timeoutMs);
}
