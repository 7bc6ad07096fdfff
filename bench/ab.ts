// `npm run bench:ab -- --base REV [--runs N] [--figure [NAME=]REGEX ...] [--figure-lower [NAME=]REGEX ...]
//   [--higher-is-better|--lower-is-better] -- COMMAND...`:
// the same benchmark command run in this checkout and in a checkout of REV, one after the other, N times
// each (who goes first alternates), and the figures each REGEX captures from each run's output set side
// by side. Several figures of one benchmark are compared in one call: one `--figure` each (higher is
// better; `--figure-lower` for a figure where lower is better, a latency say), each named by NAME.
//
// Why: the machines these benchmarks run on swing between speeds from minute to minute (docs/benchmarks.md,
// Method): two runs of the same code minutes apart differ by more than most changes. A change shows only
// in pairs run in the same minutes. (Running the two at once, one per core, held up on an AMD EPYC
// machine but not on an Intel Xeon one, where the two slowed each other more than the noise; so the pairs
// here run one after the other.)
//
// REV's checkout is a git worktree in the system's temporary directory, made for the run and removed
// after it; it gets this checkout's node_modules (a symlink) when its package-lock.json is the same, else
// its own `npm ci`. A figure is the first capture group of its REGEX (default: bench:engine's commands/s
// of each mix and size, not the peer's), commas allowed; with several matches in a run, each is
// compared with the same match of the other run.
//
//   npm run bench:ab -- --base HEAD~3 -- env BENCH_MIX=base BENCH_MEMORY=0 BENCH_PEER=0 node --expose-gc bench/engine.bench.ts 1000
//   npm run bench:ab -- --base main --runs 4 --figure "a fill adds ([\d.]+) µs" --lower-is-better -- node bench/fill-cost.bench.ts
//   npm run bench:ab -- --base main --runs 8 --figure "ndjson=from NDJSON: +([\d,]+) events/s" --figure "pg=from PostgreSQL: ([\d,]+) events/s" -- node bench/replay.bench.ts
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

interface Figure {
  readonly name: string;
  readonly regex: RegExp;
  readonly higherIsBetter: boolean;
}

interface Options {
  readonly base: string;
  readonly runs: number;
  readonly figures: readonly Figure[];
  readonly command: readonly string[];
}

const USAGE = 'usage: npm run bench:ab -- --base REV [--runs N] [--figure [NAME=]REGEX ...] [--figure-lower [NAME=]REGEX ...] [--higher-is-better|--lower-is-better] -- COMMAND...';

/** bench:engine's commands/s, one per mix and size: its report lines ("| 438,427 commands/s"), not the peer's. */
const ENGINE_RATE = '\\|\\s+([\\d,]+) commands/s';

/** `NAME=REGEX`, or a bare REGEX named by its position. */
function figure(spec: string, position: number, higherIsBetter: boolean): Figure {
  const named = /^([A-Za-z][\w./-]*)=(.+)$/s.exec(spec);
  return { name: named === null ? `figure ${position + 1}` : (named[1] as string), regex: new RegExp(named === null ? spec : (named[2] as string), 'g'), higherIsBetter };
}

function options(argv: readonly string[]): Options {
  const split = argv.indexOf('--');
  const flags = split < 0 ? argv : argv.slice(0, split);
  const command = split < 0 ? [] : argv.slice(split + 1);
  let base = '';
  let runs = 6;
  const specs: { spec: string; lower: boolean }[] = [];
  // --lower-is-better / --higher-is-better set the direction of the figures given with --figure.
  let higherIsBetter = true;
  for (let i = 0; i < flags.length; i++) {
    const flag = flags[i];
    const value = flags[i + 1];
    if ((flag === '--base' || flag === '--runs' || flag === '--figure' || flag === '--figure-lower') && value !== undefined) {
      if (flag === '--base') base = value;
      else if (flag === '--runs') runs = Number(value);
      else specs.push({ spec: value, lower: flag === '--figure-lower' });
      i++;
    } else if (flag === '--higher-is-better') higherIsBetter = true;
    else if (flag === '--lower-is-better') higherIsBetter = false;
    else throw new Error(`bench:ab: unknown or incomplete option ${flag}\n${USAGE}`);
  }
  if (base === '' || command.length === 0) throw new Error(USAGE);
  if (!(Number.isInteger(runs) && runs >= 1 && runs <= 100)) throw new Error(`bench:ab: --runs takes a whole number from 1 to 100, not ${runs}`);
  const figures = specs.length === 0 ? [figure(`engine=${ENGINE_RATE}`, 0, higherIsBetter)] : specs.map((f, k) => figure(f.spec, k, f.lower ? false : higherIsBetter));
  return { base, runs, figures, command };
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
}

/** A checkout of `rev` with its dependencies installed; returns its directory and how to remove it. */
function checkout(here: string, rev: string): { dir: string; remove: () => void } {
  const commit = git(here, 'rev-parse', '--verify', `${rev}^{commit}`);
  const parent = mkdtempSync(join(tmpdir(), 'bench-ab-'));
  const dir = join(parent, 'tree');
  git(here, 'worktree', 'add', '--detach', dir, commit);
  const remove = (): void => {
    try {
      git(here, 'worktree', 'remove', '--force', dir);
    } catch {
      rmSync(dir, { recursive: true, force: true });
      git(here, 'worktree', 'prune');
    }
    rmSync(parent, { recursive: true, force: true });
  };
  try {
    const sameLock = readFileSync(join(here, 'package-lock.json'), 'utf8') === readFileSync(join(dir, 'package-lock.json'), 'utf8');
    if (sameLock && existsSync(join(here, 'node_modules'))) symlinkSync(join(here, 'node_modules'), join(dir, 'node_modules'), 'dir');
    else {
      console.log(`bench:ab: ${rev}'s package-lock.json differs from this checkout's: npm ci there`);
      const install = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
      if (install.status !== 0) throw new Error(`bench:ab: npm ci in ${rev}'s checkout failed`);
    }
    // Benchmarks that serve the dashboard or load the client need their builds, as `npm test` makes them.
    for (const build of [['run', 'build:web'], ['run', 'build', '-w', '@competition-exchange/client']]) spawnSync('npm', build, { cwd: dir, stdio: 'ignore' });
  } catch (err) {
    remove();
    throw err;
  }
  return { dir, remove };
}

/** Every match's first group of the figure in one run's output, as numbers. */
function figures(output: string, figure: RegExp): number[] {
  return [...output.matchAll(figure)].map((m) => Number((m[1] ?? '').replaceAll(',', ''))).filter((n) => Number.isFinite(n));
}

/** One figure's pairs: the ratios of each match (new/base), and how many pairs favour the new code. */
interface Tally {
  readonly ratios: number[][];
  better: number;
  pairs: number;
}

function run(dir: string, command: readonly string[]): string {
  const child = spawnSync(command[0] as string, command.slice(1), { cwd: dir, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: process.env });
  if (child.status !== 0) throw new Error(`bench:ab: the command failed in ${dir} (exit ${child.status}):\n${child.stderr}`);
  return child.stdout + child.stderr;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

function main(): void {
  const o = options(process.argv.slice(2));
  const here = resolve(git(process.cwd(), 'rev-parse', '--show-toplevel'));
  const head = git(here, 'rev-parse', '--short', 'HEAD');
  const dirty = git(here, 'status', '--porcelain', '--untracked-files=no') !== '';
  const base = checkout(here, o.base);
  const baseName = git(here, 'rev-parse', '--short', `${o.base}^{commit}`);
  console.log(`bench:ab: this checkout (${head}${dirty ? ', with uncommitted changes' : ''}) against ${baseName}, ${o.runs} runs each, alternating`);
  for (const f of o.figures) console.log(`  ${f.name}: /${f.regex.source}/, ${f.higherIsBetter ? 'higher' : 'lower'} is better`);
  console.log(`  command: ${o.command.join(' ')}`);
  const tallies: Tally[] = o.figures.map(() => ({ ratios: [], better: 0, pairs: 0 }));
  try {
    for (let i = 0; i < o.runs; i++) {
      const newFirst = i % 2 === 0;
      const outputs: Record<'new' | 'base', string> = { new: '', base: '' };
      for (const who of newFirst ? (['new', 'base'] as const) : (['base', 'new'] as const)) outputs[who] = run(who === 'new' ? here : base.dir, o.command);
      const parts = o.figures.map((f, n) => {
        const tally = tallies[n] as Tally;
        const a = figures(outputs.new, f.regex);
        const b = figures(outputs.base, f.regex);
        if (a.length === 0 || a.length !== b.length) throw new Error(`bench:ab: run ${i + 1} gave ${a.length} of ${f.name} here and ${b.length} in ${baseName}`);
        const cells = a.map((x, k) => {
          const y = b[k] as number;
          const ratio = x / y;
          (tally.ratios[k] ??= []).push(ratio);
          tally.pairs++;
          if (f.higherIsBetter ? x > y : x < y) tally.better++;
          return `${x.toLocaleString('en-US')} / ${y.toLocaleString('en-US')} (${ratio.toFixed(3)})`;
        });
        return `${o.figures.length > 1 ? `${f.name} ` : ''}${cells.join('; ')}`;
      });
      console.log(`  pair ${i + 1} (${newFirst ? 'new' : 'base'} first): ${parts.join(' | ')}`);
    }
  } finally {
    base.remove();
  }
  o.figures.forEach((f, n) => {
    const tally = tallies[n] as Tally;
    const medians = tally.ratios.map((r) => median(r).toFixed(3));
    console.log(`new/base${o.figures.length > 1 ? ` ${f.name}` : ''}: median ratio ${medians.join(' / ')} (per match); the new code better in ${tally.better} of ${tally.pairs} pairs`);
  });
}

try {
  main();
} catch (err) {
  console.error(err instanceof Error ? err.message : String(err));
  process.exitCode = 2;
}
