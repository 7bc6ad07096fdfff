// The fan-out child's lifecycle as the operating system sees it: it ends with the main process however
// that ends (SIGTERM, SIGKILL), and a server closed in a process leaves that process free to exit,
// cleanly, even after its child was killed and replaced.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { spawnServer, type ServerProcess } from '../postgres/support/server-process.ts';
import { childrenOf, isRunning, waitUntil } from './support/processes.ts';

const SCRIPT = fileURLToPath(new URL('./support/lifecycle-script.ts', import.meta.url));

/**
 * The server's fan-out child, once the server is up. An answered request also means main.ts stops
 * gracefully on a signal (it does from the moment it logged itself listening).
 */
async function fanoutChildOf(server: ServerProcess): Promise<number> {
  expect((await fetch(`${server.url}/health`)).status).to.equal(200);
  const pid = server.child.pid as number;
  const children = childrenOf(pid).filter((c) => readFileSync(`/proc/${c}/cmdline`, 'utf8').includes('fanout-child-entry'));
  expect(children, `fan-out children of ${pid}`).to.have.length(1);
  return children[0] as number;
}

describe('ws fan-out process: lifecycle', function () {
  this.timeout(30_000);

  it('SIGTERM: the server exits 0 and its fan-out child with it, with nothing on stderr', async () => {
    const server = await spawnServer({ WS_FANOUT: 'process' });
    const child = await fanoutChildOf(server);
    expect(await server.kill('SIGTERM')).to.equal(0);
    await waitUntil('the fan-out child to exit', () => !isRunning(child), 2000);
    expect(server.stderr()).to.equal('');
  });

  it('SIGKILL of the main process: the fan-out child exits on its own', async () => {
    const server = await spawnServer({ WS_FANOUT: 'process' });
    const child = await fanoutChildOf(server);
    await server.kill('SIGKILL');
    await waitUntil('the orphaned fan-out child to exit', () => !isRunning(child), 3000);
  });

  it('a closed server leaves its process free to exit 0, after a child was killed and replaced', async () => {
    const p = spawn(process.execPath, [SCRIPT], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const timer = setTimeout(() => p.kill('SIGKILL'), 15_000);
    const [code, signal] = (await once(p, 'exit')) as [number | null, NodeJS.Signals | null];
    clearTimeout(timer);
    expect({ code, signal, err }, 'the process ended by itself, cleanly').to.deep.equal({ code: 0, signal: null, err: '' });
    const { pids } = JSON.parse(out) as { pids: number[] };
    expect(pids).to.have.length(2);
    for (const pid of pids) expect(isRunning(pid), `child ${pid}`).to.equal(false);
  });
});
