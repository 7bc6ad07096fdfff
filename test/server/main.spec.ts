// `npm start` as a process: it starts on the configured address, answers, stops with exit code 0 on
// SIGTERM, and refuses a configuration that does not parse with a message naming the variable.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Socket } from 'node:net';

const MAIN = new URL('../../src/server/main.ts', import.meta.url).pathname;

function start(env: Record<string, string>) {
  const child = spawn(process.execPath, [MAIN], { env: { ...process.env, LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return { child, out: () => stdout, err: () => stderr };
}

describe('server: the process', function () {
  this.timeout(30_000);

  it('starts, logs JSON, answers /health, and exits 0 on SIGTERM', async () => {
    const p = start({ BIND_ADDR: '127.0.0.1:0', ADMIN_API_TOKEN: 'a-real-secret' });
    let port = 0;
    for (let i = 0; i < 200 && port === 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      for (const line of p.out().split('\n')) {
        if (!line.includes('exchange listening')) continue;
        port = (JSON.parse(line) as { port: number }).port;
      }
    }
    expect(port, p.out() + p.err()).to.be.greaterThan(0);
    const health = (await (await fetch(`http://127.0.0.1:${port}/health`)).json()) as { status: string; service: string };
    expect(health).to.deep.include({ status: 'ok', service: 'exchange' });
    const exited = once(p.child, 'exit');
    p.child.kill('SIGTERM');
    const [code] = (await exited) as [number | null];
    expect(code).to.equal(0);
    expect(p.out()).to.include('exchange stopped');
    // Every stdout line is one JSON object.
    for (const line of p.out().split('\n').filter((l) => l !== '')) expect(() => JSON.parse(line), line).to.not.throw();
  });

  it('warns at startup while the admin token is the well-known default', async () => {
    const p = start({ BIND_ADDR: '127.0.0.1:0', ADMIN_API_TOKEN: '' });
    const [code] = (await once(p.child, 'exit')) as [number | null];
    expect(code).to.equal(2);
    const q = start({ BIND_ADDR: '127.0.0.1:0' });
    for (let i = 0; i < 200 && !q.out().includes('exchange listening'); i++) await new Promise((r) => setTimeout(r, 50));
    expect(q.out()).to.include('ADMIN_API_TOKEN is the well-known default');
    q.child.kill('SIGINT');
    const [qcode] = (await once(q.child, 'exit')) as [number | null];
    expect(qcode).to.equal(0);
  });

  it('ends at once on a stop signal while it starts (here stalled on a database that never answers)', async () => {
    // Accepts the connection and never says a word: the start waits on it (up to the connect timeout).
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket));
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    const { port } = silent.address() as { port: number };
    try {
      const p = start({ BIND_ADDR: '127.0.0.1:0', STORAGE_BACKEND: 'postgres', DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/none` });
      try {
        // Once the process is connecting (its handlers are in by then), it is asked to stop.
        for (let i = 0; i < 500 && sockets.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
        expect(sockets.length, p.out() + p.err()).to.be.greaterThan(0);
        const exited = once(p.child, 'exit');
        const asked = Date.now();
        p.child.kill('SIGTERM');
        const [code, signal] = (await exited) as [number | null, NodeJS.Signals | null];
        // As the default action ends it: by the signal, not after the 5 s connect timeout as a failed start.
        expect({ code, signal }).to.deep.equal({ code: null, signal: 'SIGTERM' });
        expect(Date.now() - asked).to.be.lessThan(3000);
        expect(p.err()).to.include('exchange: SIGTERM during startup: exiting');
      } finally {
        p.child.kill('SIGKILL');
      }
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });

  it('refuses a value that does not parse, naming the variable, with exit code 2', async () => {
    const p = start({ PER_USER_REQUESTS_PER_SECOND: 'lots' });
    const [code] = (await once(p.child, 'exit')) as [number | null];
    expect(code).to.equal(2);
    expect(p.err()).to.include('PER_USER_REQUESTS_PER_SECOND="lots" is not an integer');
  });

  it('fails fast with a clear message when PostgreSQL cannot be reached', async () => {
    const p = start({ BIND_ADDR: '127.0.0.1:0', STORAGE_BACKEND: 'postgres', DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' });
    const [code] = (await once(p.child, 'exit')) as [number | null];
    expect(code).to.equal(1);
    expect(p.err()).to.match(/failed to start: .*127\.0\.0\.1:1/);
  });
});
