// A practice exchange at --speed max with nobody trading: recorded commands replayed per second through
// the exchange's ordinary path (the service: admission, decide, the in-memory log and history, the
// publications), against `replay state` (read, verify, fold) of the same log in the same run; and the
// time from starting the practice CLI to its ready line (the whole recording verified first).
//
//   npm run bench:practice                   (1,000,000 events)
//   BENCH_EVENTS=200000 npm run bench:practice
//   BENCH_QUICK=1 npm run bench:practice     (20,000 events, a few seconds: a check that it runs, bench/quick.ts)
//
// The parent writes the log; `replay state` and the practice CLI each run in a process of their own
// that holds only what it measures, one after the other.
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Exchange } from '../src/commands/exchange.ts';
import { canonicalJson } from '../src/events/canonical.ts';
import type { EventLog } from '../src/events/event-log.ts';
import { chainHash, GENESIS_HASH } from '../src/events/hash.ts';
import type { ExchangeEvent } from '../src/events/types.ts';
import { SessionGenerator } from '../replay/session-generator.ts';
import { setting } from './quick.ts';

const EVENTS = setting('BENCH_EVENTS', 1_000_000, 20_000);
const PRACTICE = new URL('../practice/cli.ts', import.meta.url).pathname;

/** Writes each generated event with its chain hash as it is appended, keeping none of them. */
class NdjsonLog implements EventLog {
  headSeq = 0;
  private previous = GENESIS_HASH;
  private chunk = '';
  readonly out: ReturnType<typeof createWriteStream>;

  constructor(path: string) {
    this.out = createWriteStream(path);
  }

  append(event: ExchangeEvent): void {
    this.headSeq = event.seq;
    this.previous = chainHash(this.previous, event);
    this.chunk += canonicalJson({ ...event, hash: this.previous }) + '\n';
    if (this.chunk.length > 1 << 20) this.flush();
  }

  flush(): void {
    this.out.write(this.chunk);
    this.chunk = '';
  }
}

function perSecond(n: number, ms: number): string {
  return `${Math.round((n / ms) * 1000).toLocaleString('en-US')} events/s`;
}

/** What `replay state` runs (rebuild: read, verify, fold), timed in a fresh process from its start to the state, modules loaded. */
function replayState(file: string): number {
  const child = spawnSync(process.execPath, ['--max-old-space-size=8192', new URL(import.meta.url).pathname, '--measure-replay', file], { encoding: 'utf8' });
  if (child.status !== 0) throw new Error(`replay state failed: ${child.stderr}`);
  return Number(child.stdout.trim());
}

/** The practice CLI at max: ms to the ready line, ms from it to the report, commands played. */
async function practice(file: string): Promise<{ readyMs: number; playMs: number; faithful: boolean }> {
  const started = performance.now();
  const child = spawn(process.execPath, ['--max-old-space-size=8192', PRACTICE, '--file', file, '--speed', 'max', '--bind', '127.0.0.1:0', '--exit-when-done'], { env: { ...process.env, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'ignore'] });
  let readyAt = 0;
  let finishedAt = 0;
  let report: { faithful: boolean } | null = null;
  for await (const line of createInterface({ input: child.stdout })) {
    const message = JSON.parse(line) as { practice: string; report?: { faithful: boolean } };
    if (message.practice === 'ready') readyAt = performance.now();
    else if (message.practice === 'finished') {
      finishedAt = performance.now();
      report = message.report ?? null;
    }
  }
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0 || report === null) throw new Error(`practice exited with ${code}`);
  return { readyMs: readyAt - started, playMs: finishedAt - readyAt, faithful: report.faithful };
}

async function main(): Promise<void> {
  console.log(`practice benchmark: node ${process.version}, generating a log of ~${EVENTS.toLocaleString('en-US')} events`);
  const dir = mkdtempSync(join(tmpdir(), 'practice-bench-'));
  const file = join(dir, 'round.ndjson');
  try {
    const log = new NdjsonLog(file);
    // The replay benchmark's session (40 traders, 5 markets, orders, cancels, amends, messages, toggles).
    new SessionGenerator({ seed: 9, commands: EVENTS * 4, maxEvents: EVENTS, traders: 40, markets: ['BTC-USD', 'ETH-USD', 'SOL-USD', 'ADA-USD', 'XRP-USD'] }, new Exchange({ log })).generate();
    log.flush();
    log.out.end();
    await once(log.out, 'finish');
    const events = log.headSeq;
    console.log(`generated ${events.toLocaleString('en-US')} events, ${(statSync(file).size / 1e6).toFixed(0)} MB of NDJSON`);
    const replayMs = replayState(file);
    console.log(`replay state (rebuild in a fresh process: read, verify, fold): ${(replayMs / 1000).toFixed(2)} s, ${perSecond(events, replayMs)}`);
    const run = await practice(file);
    console.log(`practice --speed max: ready after ${(run.readyMs / 1000).toFixed(2)} s (the whole recording verified), played in ${(run.playMs / 1000).toFixed(2)} s: ${perSecond(events, run.playMs)} through the ordinary path, faithful ${run.faithful}`);
    console.log(`practice/replay: ${(replayMs / run.playMs).toFixed(2)} (goal >= 0.5); time to ready ${(run.readyMs / 1000).toFixed(2)} s (goal < 5 s at 1,000,000 events)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const at = process.argv.indexOf('--measure-replay');
if (at >= 0) {
  const { rebuild } = await import('../replay/rebuild.ts');
  const started = performance.now();
  await rebuild({ file: process.argv[at + 1] as string, quiet: true });
  process.stdout.write(`${performance.now() - started}\n`);
} else await main();
