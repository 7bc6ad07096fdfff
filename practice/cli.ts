// A practice exchange: an ordinary exchange whose other traders are a recorded round, for a team's bot
// to trade against through the same REST and WebSocket API (docs/practice.md).
//
//   npm run practice -- --file round.ndjson --speed 10
import { parseArgs } from 'node:util';
import { MAX_SPEED, type PracticeStatus, type Speed } from '../src/server/practice/practice-control.ts';
import { databaseOf, SOURCE_OPTIONS, SourceUnavailable } from '../replay/log-source.ts';
import { LogFault } from '../replay/verify.ts';
import { PracticeUsageError, startPractice, timeArg, type PracticeOptions } from './practice.ts';

export const EXIT = { ok: 0, fault: 1, usage: 2, unavailable: 3 } as const;

const HELP = `practice: trade against a recorded round, through the exchange's own API

usage: npm run practice -- --file PATH | --database URL [options]

source (one of)
  --file PATH          an NDJSON log: what replay export writes (anonymized or not), or GET /api/v1/admin/events
  --database URL       a PostgreSQL database holding an exchange's events table
  --pg                 the same, with DATABASE_URL from the environment

options
  --speed N|max        simulated time runs N times faster than the wall clock (default 1); max: no waiting
  --from-time T        play from this time (RFC 3339); what came before is the starting state
  --until-time T       play up to this time (RFC 3339; default: to the end)
  --trader NAME        your trader, new to the recording (default "practice")
  --seat USERNAME      or take a recorded trader's place: its recorded commands are dropped, you start with
                       its state at --from-time, with a new key
  --bind ADDR          host:port to serve on (default 127.0.0.1:8080; :0 picks a free port)
  --paused             start held: the play begins at POST /api/v1/practice/resume
  --exit-when-done     exit 0 after the report instead of serving on

The whole recording is verified first (every chain hash). Then the first line on stdout is
{"practice": "ready", "url", "api_key", "trader_id", "username", "admin_token", "recording"}; progress goes to
stderr; when the recording has played to its end, one more line: {"practice": "finished", "report": ...}.
Steer it with GET /api/v1/practice and POST /api/v1/practice/pause, /resume, /speed (admin token).

exit codes: 0 ok, 1 the recording is faulty (the message names the first bad seq), 2 usage, 3 the source cannot be read`;

interface Parsed extends PracticeOptions {
  readonly exitWhenDone: boolean;
}

function parse(argv: string[]): Parsed | 'help' {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      ...SOURCE_OPTIONS,
      speed: { type: 'string' },
      'from-time': { type: 'string' },
      'until-time': { type: 'string' },
      trader: { type: 'string' },
      seat: { type: 'string' },
      bind: { type: 'string' },
      paused: { type: 'boolean' },
      'exit-when-done': { type: 'boolean' },
    },
  });
  if (values.help === true) return 'help';
  if (positionals.length > 0) throw new PracticeUsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
  const database = databaseOf(values);
  if ((values.file === undefined) === (database === undefined)) throw new PracticeUsageError('give exactly one source: --file PATH, --database URL or --pg');
  if (values.trader !== undefined && values.seat !== undefined) throw new PracticeUsageError('--trader and --seat exclude each other: a new trader, or a recorded one\'s seat');
  const from = values['from-time'] === undefined ? undefined : timeArg('--from-time', values['from-time']);
  const until = values['until-time'] === undefined ? undefined : timeArg('--until-time', values['until-time']);
  if (from !== undefined && until !== undefined && from > until) throw new PracticeUsageError('--from-time must not be after --until-time');
  return {
    ...(values.file === undefined ? { database } : { file: values.file }),
    part: { from, until },
    speed: speedArg(values.speed ?? '1'),
    trader: values.trader,
    seat: values.seat,
    bind: values.bind ?? '127.0.0.1:8080',
    paused: values.paused === true,
    exitWhenDone: values['exit-when-done'] === true,
  };
}

export function speedArg(raw: string): Speed {
  if (raw === 'max') return 'max';
  const speed = /^\d+(\.\d+)?$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(speed > 0 && speed <= MAX_SPEED)) throw new PracticeUsageError(`--speed must be a number above 0 and at most ${MAX_SPEED}, or max`);
  return speed;
}

function progressLine(s: PracticeStatus): string {
  const share = s.commands_total === 0 ? 100 : (s.commands_replayed / s.commands_total) * 100;
  return `practice: ${s.state}, ${s.commands_replayed.toLocaleString('en-US')} of ${s.commands_total.toLocaleString('en-US')} recorded commands (${share.toFixed(1)}%), simulated ${s.simulated_time}, speed ${s.speed}, diverged ${s.diverged}\n`;
}

export async function main(argv: string[]): Promise<number> {
  let o: Parsed | 'help';
  try {
    o = parse(argv);
  } catch (err) {
    process.stderr.write(`practice: ${err instanceof Error ? err.message : String(err)}\n\n${HELP}\n`);
    return EXIT.usage;
  }
  if (o === 'help') {
    process.stdout.write(HELP + '\n');
    return EXIT.ok;
  }
  let practice;
  try {
    practice = await startPractice(o);
  } catch (err) {
    process.stderr.write(`practice: ${err instanceof Error ? err.message : String(err)}\n`);
    if (err instanceof LogFault) return EXIT.fault;
    if (err instanceof PracticeUsageError) return EXIT.usage;
    if (err instanceof SourceUnavailable) return EXIT.unavailable;
    throw err;
  }
  process.stdout.write(JSON.stringify(practice.ready) + '\n');
  process.stderr.write(`practice: serving ${practice.ready.url} (dashboard at ${practice.ready.url}/), ${practice.ready.recording.events.toLocaleString('en-US')} recorded events verified\n`);
  const progress = setInterval(() => process.stderr.write(progressLine(practice.player.status())), 2000);
  progress.unref();
  // Stopped by a signal: close gracefully (the server finishes its requests), exit 0.
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    clearInterval(progress);
    practice.close().then(
      () => process.exit(EXIT.ok),
      () => process.exit(EXIT.fault),
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  let report;
  try {
    report = await practice.finished;
  } catch (err) {
    clearInterval(progress);
    process.stderr.write(`practice: the play stopped: ${err instanceof Error ? err.message : String(err)}\n`);
    await practice.close();
    return err instanceof LogFault ? EXIT.fault : EXIT.unavailable;
  }
  clearInterval(progress);
  process.stderr.write(progressLine(practice.player.status()));
  process.stdout.write(JSON.stringify({ practice: 'finished', report }) + '\n');
  if (!o.exitWhenDone) return new Promise<number>(() => {});
  await practice.close();
  return EXIT.ok;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main(process.argv.slice(2)).then(
    // Pipes to stdout and stderr are written synchronously here (Linux): nothing printed is lost.
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`practice: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(70);
    },
  );
}
