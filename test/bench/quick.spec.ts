// Every benchmark runs to its end: each `npm run bench:*` script of package.json (but bench:ab, a tool
// that compares two commits, tested on its own below) in quick mode (BENCH_QUICK=1, bench/quick.ts:
// every part of the benchmark, small), one after the other. A benchmark that throws, exits with an
// error or prints no figure fails here; a benchmark added to package.json is run without a change to
// this file (and one without a quick mode shows as the slowest test, or times out). Nothing here
// asserts a time: the figures of a quick run only show that the code ran.
//
// The benchmarks that need PostgreSQL for all of their work skip where it is not reachable, with the
// reason printed, and fail instead with REQUIRE_POSTGRES=1 (test/support/postgres.ts); the others run,
// and a part of one that says it was skipped (bench:replay's and bench:bulk's PostgreSQL parts) is a
// failure where PostgreSQL answers or is required.
import { expect } from 'chai';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { postgresUnavailable, requirePostgresFeature } from '../support/postgres.ts';
import { requireTool } from '../support/required-tool.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

/** Every benchmark script, in package.json's order. */
const scripts = Object.keys((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts).filter((name) => name.startsWith('bench:') && name !== 'bench:ab');

/** Benchmarks of which every part needs PostgreSQL (the others measure something without it). */
const NEEDS_POSTGRES = new Set(['bench:pg', 'bench:pg-schema', 'bench:soak', 'bench:cluster']);

/** A figure: a number and its unit (µs, ms, %, a ratio's x, bytes, or a rate such as events/s). */
const FIGURE = /\d(?:[\d,]*\d)?(?:\.\d+)?\s?(?:(?:[kMG] )?[a-z]*\/s|µs|ms|%|x|[KMG]i?B|B)(?![A-Za-z])/;

/** The environment of a benchmark's run: this one's, without the benchmarks' own settings (which would override the quick defaults). */
function benchEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!/^(?:CLUSTER_)?BENCH_/.test(name)) env[name] = value;
  return { ...env, ...extra };
}

let running: ChildProcess | null = null;

/** Runs `npm run NAME -- ARGS` to its end; its exit code and its output (stdout and stderr interleaved). */
function npmRun(name: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string; seconds: number }> {
  const started = performance.now();
  // A process group of its own, so that a run cut short by the test's timeout takes its servers with it.
  const child = spawn('npm', ['run', name, ...(args.length === 0 ? [] : ['--', ...args])], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  running = child;
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      running = null;
      resolve({ code, signal, output, seconds: (performance.now() - started) / 1000 });
    });
  });
}

/** The end of a run's output, for a failure's message. */
function tail(output: string): string {
  return output.split('\n').slice(-40).join('\n');
}

describe('benchmarks in quick mode (BENCH_QUICK=1)', function () {
  // A benchmark in quick mode takes seconds (bench:ws, which also runs bench:market-data, about a
  // minute on a busy machine, the longest); four minutes is a benchmark without a quick mode. The
  // reporter shows the time of each one past 5 s.
  this.timeout(240_000);
  this.slow(10_000);

  let postgres: string | null = null;
  before(async function () {
    postgres = await postgresUnavailable();
  });

  afterEach(function () {
    if (running?.pid !== undefined) {
      try {
        process.kill(-running.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });

  it('finds the benchmarks in package.json', function () {
    expect(scripts).to.include.members(['bench:engine', 'bench:http', 'bench:ws', 'bench:soak']);
  });

  for (const name of scripts) {
    it(`npm run ${name} runs to its end and prints figures`, async function () {
      if (NEEDS_POSTGRES.has(name)) requirePostgresFeature(this, postgres);
      const run = await npmRun(name, [], benchEnv({ BENCH_QUICK: '1' }));
      const seen = `npm run ${name} (BENCH_QUICK=1, ${run.seconds.toFixed(1)} s):\n${tail(run.output)}`;
      expect(run.code, `exit ${String(run.code)}${run.signal === null ? '' : `, ${run.signal}`}: ${seen}`).to.equal(0);
      expect(run.output, `no figure: ${seen}`).to.match(FIGURE);
      if (/\bskipped\b/i.test(run.output)) {
        expect(postgres, `a part was skipped though PostgreSQL answers: ${seen}`).to.not.equal(null);
        requirePostgresFeature(this, postgres);
      }
    });
  }

  it('npm run bench:ab compares this checkout with a commit, then removes its worktree', async function () {
    const inGit = spawnSync('git', ['rev-parse', '--verify', 'HEAD'], { cwd: ROOT, encoding: 'utf8' });
    requireTool(this, inGit.status === 0 ? null : `this checkout is not a git repository with a commit (${String(inGit.stderr).trim()})`);
    // bench:ab makes its worktree under the system's temporary directory: here, one of this test's own,
    // so that what is left there after the run is this run's, whoever else runs bench:ab on the repository.
    const temporary = mkdtempSync(join(tmpdir(), 'bench-ab-test-'));
    try {
      const run = await npmRun('bench:ab', ['--base', 'HEAD', '--runs', '1', '--', 'env', 'BENCH_QUICK=1', 'BENCH_MIX=base', 'BENCH_MEMORY=0', 'BENCH_PEER=0', 'node', '--expose-gc', 'bench/engine.bench.ts'], benchEnv({ TMPDIR: temporary }));
      const seen = `npm run bench:ab (${run.seconds.toFixed(1)} s):\n${tail(run.output)}`;
      expect(run.code, seen).to.equal(0);
      expect(run.output, seen).to.match(/pair 1 \(new first\): [\d,]+ \/ [\d,]+ \([\d.]+\)/);
      expect(run.output, seen).to.match(/new\/base: median ratio [\d.]+ \(per match\); the new code better in [01] of 1 pairs/);
      // (Node's compile cache, which npm keeps in the temporary directory, may be there too.)
      expect(readdirSync(temporary).filter((f) => f.startsWith('bench-ab-')), 'bench:ab left its checkout behind').to.deep.equal([]);
      const worktrees = spawnSync('git', ['worktree', 'list', '--porcelain'], { cwd: ROOT, encoding: 'utf8' }).stdout;
      expect(worktrees, 'bench:ab left its worktree registered').to.not.include(temporary);
    } finally {
      if (existsSync(temporary)) rmSync(temporary, { recursive: true, force: true });
    }
  });
});
