// `npm run cluster`: a local cluster behind HAProxy, with PostgreSQL as the only prerequisite. It
// creates the database if it is missing, starts a leader, a standby and a follower (node
// src/server/main.ts with ROLE set), then HAProxy with deploy/haproxy.cfg, and prints where to go.
// The nodes trust the balancer (TRUST_PROXY=127.0.0.1, its address as they see it), so each client
// counts as itself in every per-address limit. Ctrl-C stops everything. Settings (environment):
//   CLUSTER_DATABASE_URL    default postgres://postgres@127.0.0.1:5432/exchange_cluster
//   CLUSTER_PORT            the balancer's port, default 8080; the nodes take the next three
//   CLUSTER_PROXY_PROTOCOL  1: the balancer gives the client's address in a PROXY protocol v2 header
//                           (PROXY_PROTOCOL=true on the nodes) instead of X-Forwarded-For
//   ADMIN_API_TOKEN         passed to every node (default: the well-known one, with its warning)
// startCluster() is what the test drives (test/cluster/haproxy.spec.ts), on free ports.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

export const ROOT = fileURLToPath(new URL('../', import.meta.url));
export const HAPROXY_CONFIG = fileURLToPath(new URL('./haproxy.cfg', import.meta.url));
export const DEFAULT_CLUSTER_DATABASE = 'postgres://postgres@127.0.0.1:5432/exchange_cluster';
/** The balancer's address as the nodes see its connections (it reaches them over loopback). */
export const BALANCER_ADDRESS = '127.0.0.1';

export interface ClusterNodeProcess {
  readonly name: 'a' | 'b' | 'c';
  readonly role: 'leader' | 'standby' | 'follower';
  readonly url: string;
  readonly port: number;
  child: ChildProcess;
  exited: Promise<number | null>;
}

export interface RunningCluster {
  /** The balancer's URL. */
  readonly url: string;
  readonly nodes: ClusterNodeProcess[];
  readonly haproxy: ChildProcess;
  /** Starts node `name` again, with a role (a killed leader comes back as standby). */
  restart(name: 'a' | 'b' | 'c', role: 'leader' | 'standby' | 'follower'): Promise<ClusterNodeProcess>;
  stop(): Promise<void>;
}

export interface ClusterOptions {
  readonly databaseUrl: string;
  readonly lbPort: number;
  readonly nodePorts: readonly [number, number, number];
  readonly env?: Readonly<Record<string, string>>;
  /** The client's address in a PROXY protocol v2 header (SEND_PROXY_V2; PROXY_PROTOCOL=true on the nodes). */
  readonly proxyProtocol?: boolean;
  /** Node log lines go here (default: dropped). */
  readonly log?: (line: string) => void;
}

export function haproxyBinary(): string | null {
  for (const p of ['/usr/sbin/haproxy', '/usr/bin/haproxy', '/usr/local/sbin/haproxy']) if (existsSync(p)) return p;
  return null;
}

/** Creates the database named in the URL if it does not exist yet. */
export async function ensureDatabase(url: string): Promise<void> {
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`cluster: database name ${JSON.stringify(name)} must be a plain identifier`);
  const server = new URL(url);
  server.pathname = '/postgres';
  const client = new pg.Client({ connectionString: server.toString() });
  await client.connect();
  try {
    const { rows } = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (rows.length === 0) await client.query(`create database ${name}`);
  } finally {
    await client.end();
  }
}

function startNode(name: 'a' | 'b' | 'c', role: 'leader' | 'standby' | 'follower', port: number, options: ClusterOptions, lbUrl: string): Promise<ClusterNodeProcess> {
  const child = spawn(process.execPath, ['src/server/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      STORAGE_BACKEND: 'postgres',
      DATABASE_URL: options.databaseUrl,
      ROLE: role,
      LEADER_URL: lbUrl,
      BIND_ADDR: `127.0.0.1:${port}`,
      LOG_LEVEL: process.env['LOG_LEVEL'] ?? 'info',
      TRUST_PROXY: BALANCER_ADDRESS,
      PROXY_PROTOCOL: options.proxyProtocol === true ? 'true' : 'false',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr?.on('data', (d: Buffer) => {
      err += d.toString();
      options.log?.(`[${name} ${role}] ${d.toString().trimEnd()}`);
    });
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      let nl = out.indexOf('\n');
      while (nl >= 0) {
        const line = out.slice(0, nl);
        out = out.slice(nl + 1);
        nl = out.indexOf('\n');
        options.log?.(`[${name}] ${line}`);
        if (line.includes('"exchange listening"')) resolve({ name, role, url: `http://127.0.0.1:${port}`, port, child, exited });
      }
    });
    void exited.then((code) => reject(new Error(`node ${name} (${role}) exited with ${String(code)} before listening: ${err}`)));
  });
}

export interface BalancerOptions {
  readonly lbPort: number;
  /** host:port of the servers a, b and c of deploy/haproxy.cfg. */
  readonly nodes: readonly [string, string, string];
  readonly proxyProtocol?: boolean;
  readonly log?: (line: string) => void;
}

/**
 * HAProxy with deploy/haproxy.cfg, once it listens and routes commands to the node that admits them
 * (ten /leader/health answers running say "admitting":true).
 */
export async function startBalancer(options: BalancerOptions): Promise<ChildProcess> {
  const haproxyPath = haproxyBinary();
  if (haproxyPath === null) throw new Error('cluster: haproxy is not installed (Debian: apt-get install haproxy)');
  const lbUrl = `http://127.0.0.1:${options.lbPort}`;
  const [a, b, c] = options.nodes;
  const { SEND_PROXY_V2: _inherited, ...env } = process.env;
  const haproxy = spawn(haproxyPath, ['-db', '-f', HAPROXY_CONFIG], {
    env: { ...env, LB_BIND: `127.0.0.1:${options.lbPort}`, NODE_A: a, NODE_B: b, NODE_C: c, ...(options.proxyProtocol === true ? { SEND_PROXY_V2: '1' } : {}) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  haproxy.stdout?.on('data', (d: Buffer) => options.log?.(`[haproxy] ${d.toString().trimEnd()}`));
  haproxy.stderr?.on('data', (d: Buffer) => options.log?.(`[haproxy] ${d.toString().trimEnd()}`));
  try {
    await waitFor(async () => (await fetch(`${lbUrl}/lb-health`)).ok, 10_000, 'haproxy to listen');
    // Servers start as up until their first checks fail: commands could still reach the standby.
    let running = 0;
    await waitFor(
      async () => {
        const res = await fetch(`${lbUrl}/leader/health`);
        running = (await res.text()).includes('"admitting":true') ? running + 1 : 0;
        return running >= 10;
      },
      15_000,
      'haproxy to route commands to the leader only',
    );
  } catch (err) {
    haproxy.kill('SIGTERM');
    throw err;
  }
  return haproxy;
}

export async function startCluster(options: ClusterOptions): Promise<RunningCluster> {
  if (haproxyBinary() === null) throw new Error('cluster: haproxy is not installed (Debian: apt-get install haproxy)');
  await ensureDatabase(options.databaseUrl);
  const lbUrl = `http://127.0.0.1:${options.lbPort}`;
  const [pa, pb, pc] = options.nodePorts;
  const nodes: ClusterNodeProcess[] = [];
  const stopAll = async () => {
    for (const n of nodes) if (n.child.exitCode === null) n.child.kill('SIGTERM');
    await Promise.all(nodes.map((n) => n.exited));
  };
  let haproxy: ChildProcess | null = null;
  try {
    // The leader first: on a new database it creates the log the others follow.
    nodes.push(await startNode('a', 'leader', pa, options, lbUrl));
    nodes.push(...(await Promise.all([startNode('b', 'standby', pb, options, lbUrl), startNode('c', 'follower', pc, options, lbUrl)])));
    haproxy = await startBalancer({ lbPort: options.lbPort, nodes: [`127.0.0.1:${pa}`, `127.0.0.1:${pb}`, `127.0.0.1:${pc}`], ...(options.proxyProtocol === undefined ? {} : { proxyProtocol: options.proxyProtocol }), ...(options.log === undefined ? {} : { log: options.log }) });
  } catch (err) {
    haproxy?.kill('SIGTERM');
    await stopAll();
    throw err;
  }
  const lb = haproxy;
  return {
    url: lbUrl,
    nodes,
    haproxy: lb,
    restart: async (name, role) => {
      const i = nodes.findIndex((n) => n.name === name);
      const port = options.nodePorts[['a', 'b', 'c'].indexOf(name)] as number;
      const node = await startNode(name, role, port, options, lbUrl);
      if (i >= 0) nodes[i] = node;
      else nodes.push(node);
      return node;
    },
    stop: async () => {
      const gone = new Promise<void>((resolve) => (lb.exitCode !== null ? resolve() : lb.once('exit', () => resolve())));
      lb.kill('SIGTERM');
      await gone;
      await stopAll();
    },
  };
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`cluster: timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function main(): Promise<void> {
  const databaseUrl = process.env['CLUSTER_DATABASE_URL'] ?? DEFAULT_CLUSTER_DATABASE;
  const lbPort = Number(process.env['CLUSTER_PORT'] ?? 8080);
  if (!Number.isInteger(lbPort) || lbPort < 1 || lbPort > 65532) throw new Error(`CLUSTER_PORT=${process.env['CLUSTER_PORT']} is not a port`);
  const verbose = process.env['CLUSTER_VERBOSE'] === '1';
  const proxyProtocol = process.env['CLUSTER_PROXY_PROTOCOL'] === '1';
  const cluster = await startCluster({ databaseUrl, lbPort, nodePorts: [lbPort + 1, lbPort + 2, lbPort + 3], proxyProtocol, ...(verbose ? { log: (l) => console.log(l) } : {}) });
  console.log(`exchange cluster on ${databaseUrl}
  balancer   ${cluster.url}            (dashboard, API, /ws market data, /leader/ws trading; HAProxy)
  leader     ${cluster.nodes[0]?.url}  (node a)
  standby    ${cluster.nodes[1]?.url}  (node b: takes over when a dies)
  follower   ${cluster.nodes[2]?.url}  (node c)
Each node's role: GET /health. Ctrl-C stops everything.`);
  for (const n of cluster.nodes) void n.exited.then((code) => console.log(`node ${n.name} exited (${String(code)})`));
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void cluster.stop().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((err: unknown) => {
    console.error(`cluster: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
}
