// `npm run bench:fanout-channel`: what it costs the main process to hand the fan-out child every
// published event, by each way the channel could be built (src/server/fanout/ took the last):
// - ipc-each: child.send() per event over Node's IPC channel (JSON serialization of the message);
// - ipc-turn: one child.send() per event-loop turn with the turn's events (an array);
// - ipc-advanced: the same with serialization 'advanced' (structured clone);
// - pipe-ndjson: a socketpair as an extra stdio fd, one write per turn of newline-delimited records
//   with each event's JSON embedded as it is.
// Events are real OrderSubmitted events (with a fill). Measured: events/s the child has received, and
// the main process's CPU per event (process.cpuUsage), in bursts of BENCH_BURST events per turn.
// Prints figures, never passes or fails. BENCH_QUICK=1 (bench/quick.ts): 5,000 events each way, a
// check that it runs.
import { fork } from 'node:child_process';
import { Socket } from 'node:net';
import { loadavg } from 'node:os';
import { setting } from './quick.ts';

const EVENTS = setting('BENCH_EVENTS', 200_000, 5_000);
const BURST = Number(process.env['BENCH_BURST'] ?? 20);

const EVENT = {
  seq: 1,
  time: '2026-11-24T12:00:00.000001Z',
  type: 'OrderSubmitted',
  v: 2,
  data: {
    order: { id: '6f1c2d4e-8a9b-4c1d-9e2f-0a1b2c3d4e5f', trader_id: '0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9', market: 'BENCH-USD', side: 'BUY', price: 100, quantity: 2, type: 'LIMIT', time_in_force: 'GTC', self_trade_prevention: 'NONE', client_order_id: null },
    fills: [{ fill_id: '6f1c2d4e-8a9b-4c1d-9e2f-0a1b2c3d4e60', maker_order_id: '1a2b3c4d-5e6f-4071-8293-a4b5c6d7e8f0', maker_trader_id: '2b3c4d5e-6f70-4182-93a4-b5c6d7e8f901', price: 100, quantity: 1, maker_remaining: 0 }],
    self_trade_canceled: [],
    remaining: 1,
    status: 'open',
  },
};

type Way = 'ipc-each' | 'ipc-turn' | 'ipc-advanced' | 'pipe-ndjson';

async function child(way: Way): Promise<void> {
  let received = 0;
  const report = (): void => {
    if (received >= EVENTS) process.send?.({ done: received });
  };
  if (way === 'pipe-ndjson') {
    const socket = new Socket({ fd: 4, readable: true, writable: true });
    let partial = '';
    socket.on('data', (chunk: Buffer) => {
      const text = partial + chunk.toString('utf8');
      let start = 0;
      for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
        JSON.parse(text.slice(start + 1, nl));
        received++;
        start = nl + 1;
      }
      partial = text.slice(start);
      report();
    });
  } else {
    process.on('message', (m: unknown) => {
      received += Array.isArray(m) ? m.length : 1;
      report();
    });
  }
  process.send?.({ ready: true });
}

async function measure(way: Way): Promise<void> {
  const proc = fork(new URL(import.meta.url).pathname, ['child', way], { stdio: ['ignore', 'inherit', 'inherit', 'ipc', 'pipe'], serialization: way === 'ipc-advanced' ? 'advanced' : 'json' });
  await new Promise<void>((resolve) => proc.once('message', () => resolve()));
  const pipe = proc.stdio[4] as Socket;
  const done = new Promise<void>((resolve) => proc.on('message', (m: { done?: number }) => m.done !== undefined && resolve()));
  const cpu = process.cpuUsage();
  const started = performance.now();
  let seq = 0;
  while (seq < EVENTS) {
    const batch: object[] = [];
    const lines: string[] = [];
    for (let i = 0; i < BURST && seq < EVENTS; i++) {
      const event = { ...EVENT, seq: ++seq };
      if (way === 'ipc-each') proc.send(event);
      else if (way === 'pipe-ndjson') lines.push(`e${JSON.stringify(event)}\n`);
      else batch.push(event);
    }
    if (way === 'pipe-ndjson') {
      if (!pipe.write(lines.join(''))) await new Promise((r) => pipe.once('drain', r));
    } else if (way !== 'ipc-each') proc.send(batch);
    // One turn of the event loop per burst, as the service publishes a turn's commands.
    await new Promise((r) => setImmediate(r));
  }
  await done;
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  console.log(`${way.padEnd(13)} ${(EVENTS / seconds).toFixed(0).padStart(8)} events/s received; main process ${((used.user + used.system) / EVENTS).toFixed(2)} us CPU per event; load avg ${(loadavg()[0] as number).toFixed(2)}`);
  proc.kill();
}

const [, , role, way] = process.argv;
if (role === 'child') await child(way as Way);
else {
  console.log(`node ${process.version}, ${EVENTS} OrderSubmitted events, ${BURST} per turn`);
  for (const w of ['ipc-each', 'ipc-turn', 'ipc-advanced', 'pipe-ndjson'] as const) await measure(w);
}
