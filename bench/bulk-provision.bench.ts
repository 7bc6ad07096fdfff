// `npm run bench:bulk`: provisioning 10,000 teams in one call of POST /api/v1/admin/users/bulk (goal:
// under 5 s on this machine), in memory and on PostgreSQL (when reachable, with durable acks so the
// reply waits for the commit). Reference measured in the same run: generating and hashing 10,000 keys
// alone (the cost the issue names), and provisioning 1,000 traders one request at a time. Prints
// figures and ratios; never passes or fails on time. BENCH_QUICK=1 (bench/quick.ts): 500 teams a call
// and 50 single requests, both backends: a check that it runs.
import { loadavg } from 'node:os';
import { startServer, type RunningServer } from '../src/server/app.ts';
import { hashApiKey, newApiKey } from '../src/server/clock.ts';
import { loadConfig } from '../src/server/config.ts';
import { createLogger } from '../src/server/logger.ts';
import { createDatabase, dropDatabase, postgresUnavailable } from '../test/support/postgres.ts';
import { quick, setting } from './quick.ts';

const N = setting('BENCH_BULK_N', 10_000, 500);
const SINGLES = quick(1_000, 50);
const ADMIN_TOKEN = 'bench-admin-token';
const RUNS = 3;

async function start(env: Record<string, string>): Promise<RunningServer> {
  const config = loadConfig({ BIND_ADDR: '127.0.0.1:0', ADMIN_API_TOKEN: ADMIN_TOKEN, LOG_LEVEL: 'silent', ...env });
  return startServer(config, createLogger('silent'));
}

function names(prefix: string, n: number): string[] {
  // 64 characters each: the largest a username may be, so the body is the largest a call may carry.
  return Array.from({ length: n }, (_, i) => `${prefix}-${String(i).padStart(6, '0')}-`.padEnd(64, 'x'));
}

async function bulk(server: RunningServer, prefix: string): Promise<number> {
  const body = JSON.stringify(names(prefix, N));
  const started = performance.now();
  const res = await fetch(`${server.url}/api/v1/admin/users/bulk`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body });
  const reply = (await res.json()) as { profiles?: unknown[] };
  const ms = performance.now() - started;
  if (res.status !== 201 || reply.profiles?.length !== N) throw new Error(`bulk: ${res.status} ${JSON.stringify(reply).slice(0, 200)}`);
  return ms;
}

async function singles(server: RunningServer, prefix: string): Promise<number> {
  const started = performance.now();
  for (const username of names(prefix, SINGLES)) {
    const res = await fetch(`${server.url}/api/v1/admin/users`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ username }) });
    if (res.status !== 201) throw new Error(`single: ${res.status}`);
    await res.arrayBuffer();
  }
  return performance.now() - started;
}

function hashing(): number {
  const started = performance.now();
  let sink = 0;
  for (let i = 0; i < N; i++) sink += hashApiKey(newApiKey()).length;
  if (sink !== N * 64) throw new Error('hashing: unexpected digest length');
  return performance.now() - started;
}

function best(values: number[]): number {
  return Math.min(...values);
}

function fmt(ms: number): string {
  return `${ms.toFixed(0).padStart(6)} ms`;
}

async function measure(label: string, env: Record<string, string>): Promise<void> {
  const server = await start(env);
  try {
    const runs: number[] = [];
    for (let r = 0; r < RUNS; r++) runs.push(await bulk(server, `${label}${r}`));
    const one = await singles(server, `${label}-single`);
    const hash = best(Array.from({ length: RUNS }, hashing));
    const b = best(runs);
    const perSingle = one / SINGLES;
    console.log(`${label.padEnd(10)} bulk ${N} in one call: best ${fmt(b)} (runs ${runs.map((x) => x.toFixed(0)).join(', ')} ms) ${b < 5000 ? 'goal < 5 s: met' : 'goal < 5 s: NOT met'}`);
    console.log(`${label.padEnd(10)} reference: generating + hashing ${N} keys ${fmt(hash)} (${((hash / b) * 100).toFixed(1)}% of the call)`);
    console.log(`${label.padEnd(10)} reference: ${SINGLES} single POST /api/v1/admin/users ${fmt(one)} = ${perSingle.toFixed(2)} ms each; ${N} that way ~ ${fmt(perSingle * N)}; bulk is ${((perSingle * N) / b).toFixed(1)}x faster`);
  } finally {
    await server.close();
  }
}

async function main(): Promise<void> {
  console.log(`bulk provisioning bench: node ${process.version}, load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  await measure('in-memory', {});
  const unavailable = await postgresUnavailable();
  if (unavailable !== null) {
    console.log(`postgres   skipped: ${unavailable}`);
    return;
  }
  const url = await createDatabase('bench_bulk');
  try {
    await measure('postgres', { STORAGE_BACKEND: 'postgres', DATABASE_URL: url, POSTGRES_DURABLE_ACKS: 'true' });
  } finally {
    await dropDatabase(url);
  }
}

await main();
