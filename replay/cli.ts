// The replay tool for auditors and operators: verify a log, re-run its matching, rebuild the state at
// any point, export it. It trusts nothing but the log: not the server that wrote it.
//
//   npm run replay -- --help
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { rm } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { canonicalJson } from '../src/events/canonical.ts';
import { legacyStateHash } from '../src/projections/history/legacy-state-hash.ts';
import { STATE_HASH_VERSION, stateHash } from '../src/projections/state-hash.ts';
import { formatMicros, parseMicros } from '../src/server/clock.ts';
import { CONNECT_TIMEOUT_MS, redactUrl } from '../src/server/persistence/postgres/connection.ts';
import { streamStoredEvents } from '../src/server/persistence/postgres/event-stream.ts';
import { anonymize } from './anonymize.ts';
import { databaseOf, SOURCE_OPTIONS, SourceUnavailable } from './log-source.ts';
import { checkSnapshots, type SnapshotVerdict } from './check-snapshots.ts';
import { prove } from './prove.ts';
import { importLog, TargetNotEmpty } from './import.ts';
import { rebuild } from './rebuild.ts';
import { Progress } from './progress.ts';
import { LogFault } from './verify.ts';
import { rows, stateJson, toCsv, VIEWS, type View } from './views.ts';

export const EXIT = { ok: 0, fault: 1, usage: 2, unavailable: 3, notEmpty: 4 } as const;

const HELP = `replay: verify, audit and rebuild an exchange event log

usage: npm run replay -- <command> [source] [options]

commands
  verify    check the log: well-formed events, seq gap-free from 1, times in order, every chain hash
  audit     verify, and re-run matching: every recorded outcome must come out again, exactly
  state     verify and rebuild the state, then print it (JSON by default)
  export    write the log from PostgreSQL as NDJSON with its chain hashes (streamed, constant memory); with
            --anonymize, from any source, verified first, a log a team may have (practice rounds)
  prove     recompute official standings (POST /api/v1/admin/leaderboard/freeze) from the log up to their
            seq, with the chain hash there, and say whether they match what was recorded (exit 0 / 1)
  import    restore an exported log (--file) into an EMPTY database (--pg or --database): the whole file is
            verified first (every chain hash; every event applicable), then loaded in one transaction
  snapshots check every snapshot a database holds against its log (--pg or --database): at each one's seq,
            the snapshot restored must have the state hash the log folds to (exit 0 / 1; a snapshot in
            another build's format is listed as not checked)

source (one of)
  --file PATH          an NDJSON log: an export of this tool, or GET /api/v1/admin/events
  --database URL       a PostgreSQL database holding the exchange's events table
  --pg                 the same, with DATABASE_URL from the environment

options for verify, audit and state
  --until-seq N        stop after event N (e.g. the seq just before a reset, to publish the old round)
  --until-time T       stop after the last event at or before time T (RFC 3339)
  --audit              re-run matching while rebuilding (verify and state; audit always does)
options for state
  --view V             leaderboard | positions | open-orders | fills | markets | all (default all)
  --format F           json (default) | csv (needs one --view)
  --state-hash         print only the state hash (equal to the live server's at the same seq: version 3,
                       the live state with the log's chain hash there)
  --hash-version N     with --state-hash: 3 (default), or 2 for the hash this build's predecessors printed
                       (the whole history hashed; a log of schema-1 events only gets version 1's, as before)
options for prove
  --label L            the standings with this label (default: the newest frozen standings)
options for export
  --out PATH           write there instead of stdout
  --anonymize          traders renamed team-001, team-002, ... in order of creation (ids likewise), no key
                       material, client order ids hashed, operator message texts kept; the chain is the new
                       log's own (docs/replay.md, "Publishing a round")
options for every command
  --quiet              no progress line on stderr
an option a command does not use is refused (exit 2)
import takes both: --file PATH (the log) and --pg or --database URL (the empty target)

exit codes: 0 ok, 1 the log is faulty (the message names the first bad seq; prove: not proved; snapshots: one
            differs or lies past the log's end), 2 usage (an option the command does not use too),
            3 source unavailable,
            4 import: the target database is not empty (or an exchange is running on it)`;

class UsageError extends Error {}

/**
 * The commands each option means something to. An option given to another command is refused rather
 * than ignored: `verify --view fills` or `snapshots --until-seq 100` would otherwise run as if it were
 * not there, and the caller would take the answer for the one they asked. (--quiet, which only silences
 * a progress line, is taken by every command.)
 */
const OPTION_COMMANDS: Readonly<Record<string, readonly string[]>> = {
  'until-seq': ['verify', 'audit', 'state'],
  'until-time': ['verify', 'audit', 'state'],
  view: ['state'],
  format: ['state'],
  'state-hash': ['state'],
  'hash-version': ['state'],
  audit: ['verify', 'audit', 'state'],
  out: ['export'],
  anonymize: ['export'],
  label: ['prove'],
};

interface Options {
  readonly command: string;
  readonly file: string | undefined;
  readonly database: string | undefined;
  readonly untilSeq: number | undefined;
  readonly untilTime: string | undefined;
  readonly view: View | 'all';
  readonly format: 'json' | 'csv';
  readonly stateHashOnly: boolean;
  readonly hashVersion: 2 | 3;
  readonly audit: boolean;
  readonly out: string | undefined;
  readonly anonymize: boolean;
  readonly quiet: boolean;
  readonly label: string | undefined;
}

function parse(argv: string[]): Options | 'help' {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      ...SOURCE_OPTIONS,
      'until-seq': { type: 'string' },
      'until-time': { type: 'string' },
      view: { type: 'string' },
      format: { type: 'string' },
      'state-hash': { type: 'boolean' },
      'hash-version': { type: 'string' },
      audit: { type: 'boolean' },
      out: { type: 'string' },
      anonymize: { type: 'boolean' },
      quiet: { type: 'boolean' },
      label: { type: 'string' },
    },
  });
  if (values.help === true || positionals.length === 0) return 'help';
  const command = positionals[0] as string;
  if (!['verify', 'audit', 'state', 'export', 'prove', 'import', 'snapshots'].includes(command)) throw new UsageError(`unknown command ${JSON.stringify(command)}`);
  if (positionals.length > 1) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[1])}`);
  for (const [option, commands] of Object.entries(OPTION_COMMANDS)) {
    if ((values as Record<string, unknown>)[option] !== undefined && !commands.includes(command)) {
      throw new UsageError(`--${option} does not apply to ${command} (only to ${commands.join(', ')})`);
    }
  }
  const database = databaseOf(values);
  if (command === 'import') {
    if (values.file === undefined || database === undefined) throw new UsageError('import needs --file PATH (the exported log) and --pg or --database URL (the empty target)');
  } else if ((values.file === undefined) === (database === undefined)) throw new UsageError('give exactly one source: --file PATH, --database URL or --pg');
  if (command === 'export' && database === undefined && values.anonymize !== true) throw new UsageError('export reads from PostgreSQL: --database URL or --pg (with --anonymize, any source)');
  if (command === 'snapshots' && database === undefined) throw new UsageError('snapshots reads them from PostgreSQL: --database URL or --pg');
  let untilSeq: number | undefined;
  if (values['until-seq'] !== undefined) {
    untilSeq = Number(values['until-seq']);
    if (!Number.isSafeInteger(untilSeq) || untilSeq < 0) throw new UsageError('--until-seq must be a whole number');
  }
  let untilTime: string | undefined;
  if (values['until-time'] !== undefined) {
    const micros = parseMicros(values['until-time']);
    if (!Number.isFinite(micros)) throw new UsageError('--until-time must be an RFC 3339 time');
    untilTime = formatMicros(micros);
  }
  const view = (values.view ?? 'all') as View | 'all';
  if (view !== 'all' && !VIEWS.includes(view)) throw new UsageError(`--view must be one of ${VIEWS.join(', ')}, all`);
  const format = (values.format ?? 'json') as 'json' | 'csv';
  if (format !== 'json' && format !== 'csv') throw new UsageError('--format must be json or csv');
  if (format === 'csv' && view === 'all') throw new UsageError('--format csv needs one --view');
  // --state-hash prints the hash alone: a view or a format given with it would be ignored.
  if (values['state-hash'] === true && (values.view !== undefined || values.format !== undefined)) throw new UsageError('--state-hash prints only the hash: drop --view and --format');
  const hashVersion = values['hash-version'] === undefined ? STATE_HASH_VERSION : Number(values['hash-version']);
  if (hashVersion !== 2 && hashVersion !== 3) throw new UsageError('--hash-version must be 2 or 3');
  if (values['hash-version'] !== undefined && values['state-hash'] !== true) throw new UsageError('--hash-version goes with --state-hash');
  return {
    command,
    file: values.file,
    database,
    untilSeq,
    untilTime,
    view,
    format,
    stateHashOnly: values['state-hash'] === true,
    hashVersion,
    audit: command === 'audit' || values.audit === true,
    out: values.out,
    anonymize: values.anonymize === true,
    quiet: values.quiet === true,
    label: values.label,
  };
}

async function write(text: string, out = process.stdout): Promise<void> {
  if (!out.write(text)) await once(out, 'drain');
}

async function exportLog(o: Options): Promise<void> {
  const url = o.database as string;
  const pool = new pg.Pool({ connectionString: url, max: 1, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, application_name: 'exchange-replay-export' });
  const out = o.out === undefined ? process.stdout : createWriteStream(o.out);
  const progress = new Progress('export', !o.quiet && process.stderr.isTTY === true);
  let seq = 0;
  try {
    try {
      await pool.query('select 1 from events limit 1');
    } catch (err) {
      throw new SourceUnavailable(`cannot read events from ${redactUrl(url)}: ${err instanceof Error ? err.message : String(err)}`);
    }
    let chunk = '';
    for await (const { event, hash } of streamStoredEvents(pool, 0)) {
      chunk += canonicalJson({ ...event, hash }) + '\n';
      seq = event.seq;
      progress.tick(seq);
      if (chunk.length > 65536) {
        await write(chunk, out as typeof process.stdout);
        chunk = '';
      }
    }
    await write(chunk, out as typeof process.stdout);
  } finally {
    await pool.end();
    if (out !== process.stdout) {
      out.end();
      await once(out, 'finish');
    }
    progress.done(seq);
  }
}

/** export --anonymize: the log verified whole, then rewritten (anonymize.ts); a partial output file is removed. */
async function exportAnonymized(o: Options): Promise<void> {
  const out = o.out === undefined ? process.stdout : createWriteStream(o.out);
  try {
    const events = await anonymize({ file: o.file, database: o.database, quiet: o.quiet }, (text) => write(text, out as typeof process.stdout));
    if (out !== process.stdout) {
      out.end();
      await once(out, 'finish');
    }
    if (!o.quiet) process.stderr.write(`replay: anonymized ${events} events, every chain hash of the source verified\n`);
  } catch (err) {
    if (out !== process.stdout) {
      out.destroy();
      await rm(o.out as string, { force: true });
    }
    throw err;
  }
}

async function proveStandings(o: Options): Promise<number> {
  const proof = await prove(o);
  const which = o.label === undefined ? 'frozen standings' : `frozen standings labelled ${JSON.stringify(o.label)}`;
  if (proof === null) {
    process.stderr.write(`replay: not proved: the log holds no ${which}\n`);
    return EXIT.fault;
  }
  const what = `${JSON.stringify(proof.label)} (frozen at seq ${proof.seq}, standings as of seq ${proof.asOfSeq}, ${proof.rows} rows)`;
  if (proof.problems.length > 0) {
    process.stderr.write(`replay: NOT PROVED: ${what}\n${proof.problems.map((p) => `  - ${p}\n`).join('')}`);
    return EXIT.fault;
  }
  process.stdout.write(`proved: ${what}: every row recomputed from the log matches; head hash ${proof.logHash} matches the chain at seq ${proof.asOfSeq}\n`);
  return EXIT.ok;
}

const VERDICT_WORDS: Readonly<Record<SnapshotVerdict['status'], string>> = {
  matches: 'matches the log',
  differs: 'DIFFERS from the log:',
  ahead: "PAST THE LOG'S END:",
  unchecked: 'not checked:',
};

async function checkStoredSnapshots(o: Options): Promise<number> {
  const verdicts = await checkSnapshots({ ...o, database: o.database as string });
  if (verdicts.length === 0) {
    process.stdout.write('ok: the database holds no snapshots\n');
    return EXIT.ok;
  }
  for (const v of verdicts) {
    const why = v.status === 'matches' ? `(state hash ${v.logStateHash ?? ''})` : (v.fault ?? '');
    process.stdout.write(`snapshot at seq ${v.seq}: ${VERDICT_WORDS[v.status]} ${why}\n`);
  }
  const differ = verdicts.filter((v) => v.status === 'differs').map((v) => v.seq);
  const ahead = verdicts.filter((v) => v.status === 'ahead').map((v) => v.seq);
  // Different advice: a wrong snapshot is only in recovery's way, and deleting it loses nothing; a
  // snapshot past the log's end means the log lost events, and deleting the snapshot would let the
  // exchange start without them.
  if (differ.length > 0) {
    process.stderr.write(`replay: ${differ.length} of ${verdicts.length} snapshots differ from the log (recovery may start from one; delete them: delete from snapshots where seq in (${differ.join(', ')}))\n`);
  }
  if (ahead.length > 0) {
    process.stderr.write(
      `replay: the log ends before ${ahead.length} of ${verdicts.length} snapshots (seq ${ahead.join(', ')}): it is missing events they cover, and recovery refuses to start; ` +
        'restore the log from a backup (an export) rather than delete the snapshots, which would start the exchange without those events\n',
    );
  }
  return differ.length > 0 || ahead.length > 0 ? EXIT.fault : EXIT.ok;
}

export async function main(argv: string[]): Promise<number> {
  let o: Options | 'help';
  try {
    o = parse(argv);
  } catch (err) {
    process.stderr.write(`replay: ${err instanceof Error ? err.message : String(err)}\n\n${HELP}\n`);
    return EXIT.usage;
  }
  if (o === 'help') {
    process.stdout.write(HELP + '\n');
    return EXIT.ok;
  }
  try {
    if (o.command === 'export') {
      await (o.anonymize ? exportAnonymized(o) : exportLog(o));
      return EXIT.ok;
    }
    if (o.command === 'prove') return await proveStandings(o);
    if (o.command === 'snapshots') return await checkStoredSnapshots(o);
    if (o.command === 'import') {
      const imported = await importLog(o.file as string, o.database as string, { quiet: o.quiet });
      process.stdout.write(`ok: imported ${imported.events} events into ${redactUrl(o.database as string)}, every chain hash verified; head hash ${imported.headHash}\n`);
      return EXIT.ok;
    }
    const { exchange, history, verifier } = await rebuild(o);
    const state = exchange.state;
    if (o.command === 'verify' || o.command === 'audit') {
      const chain = verifier.fullyHashed ? 'every chain hash verified' : 'no stored hashes in this log: chain computed';
      process.stdout.write(`ok: ${state.seq} events, seq gap-free, ${chain}${o.audit ? ', every outcome re-run and matched' : ''}; head hash ${verifier.headHash}\n`);
      return EXIT.ok;
    }
    if (o.stateHashOnly) {
      process.stdout.write((o.hashVersion === 2 ? legacyStateHash(state, history) : stateHash(state, verifier.headHash)) + '\n');
      return EXIT.ok;
    }
    if (o.format === 'csv') await write(toCsv(rows(state, history, o.view as View)));
    else await write(JSON.stringify(stateJson(state, history, verifier.headHash, o.view), null, 2) + '\n');
    return EXIT.ok;
  } catch (err) {
    if (err instanceof LogFault) {
      process.stderr.write(`replay: ${err.message}\n`);
      return EXIT.fault;
    }
    if (err instanceof SourceUnavailable) {
      process.stderr.write(`replay: ${err.message}\n`);
      return EXIT.unavailable;
    }
    if (err instanceof TargetNotEmpty) {
      process.stderr.write(`replay: ${err.message}\n`);
      return EXIT.notEmpty;
    }
    throw err;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`replay: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exitCode = 70;
    },
  );
}
