// Run by lifecycle.spec.ts as a process of its own: a server in process mode whose fan-out child is
// killed and replaced, then closed. Once it closes, nothing may keep this process alive or make it fail:
// no child left behind, no error event or rejection after the close, no exit code taken from a child.
import { WebSocket } from 'ws';
import { startServer } from '../../../src/server/app.ts';
import { loadConfig } from '../../../src/server/config.ts';
import { createLogger } from '../../../src/server/logger.ts';

process.on('unhandledRejection', (reason) => {
  process.stderr.write(`unhandled rejection: ${String(reason)}\n`);
  process.exitCode = 1;
});

const open = async (url: string): Promise<WebSocket> => {
  const ws = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  ws.on('error', () => {});
  ws.send(JSON.stringify({ op: 'subscribe', channel: 'l3', market: 'LIFE-USD' }));
  await new Promise<void>((resolve) => ws.on('message', (data) => String(data).includes('"snapshot"') && resolve()));
  return ws;
};

const config = loadConfig({ BIND_ADDR: '127.0.0.1:0', ADMIN_API_TOKEN: 'lifecycle', LOG_LEVEL: 'silent', WS_FANOUT: 'process' });
const server = await startServer(config, createLogger('silent'));
const host = server.fanout;
if (host === null) throw new Error('no fan-out child');
const pids: number[] = [host.pid ?? 0];
const first = await open(server.wsUrl);
process.kill(pids[0] as number, 'SIGKILL');
while (host.pid === null || host.pid === pids[0]) await new Promise((r) => setTimeout(r, 10));
pids.push(host.pid);
const second = await open(server.wsUrl);
await server.close();
first.terminate();
second.terminate();
process.stdout.write(`${JSON.stringify({ pids })}\n`);
