// BENCH_QUICK=1: every benchmark runs every part of itself once, at a small size or for a short time (a
// few seconds a part), so that a benchmark that throws anywhere fails a test (test/bench/quick.spec.ts
// runs every `npm run bench:*` this way). Its figures prove only that the code ran, not how fast it is.
// Each benchmark picks its sizes and durations with `setting` (one a name in the environment may set)
// or `quick` (one no name sets): a setting given explicitly still wins over the quick default.

/** True when BENCH_QUICK=1. */
export const QUICK = process.env['BENCH_QUICK'] === '1';

/** `small` in quick mode, else `full`: a size or duration the environment does not set. */
export function quick<T>(full: T, small: T): T {
  return QUICK ? small : full;
}

/** The number the environment gives `name`, else `small` in quick mode, else `full`; a value that is not a number is refused. */
export function setting(name: string, full: number, small: number): number {
  const given = process.env[name];
  if (given === undefined || given === '') return quick(full, small);
  const value = Number(given);
  if (!Number.isFinite(value)) throw new Error(`${name}=${given}: a number is expected`);
  return value;
}

/** The text the environment gives `name` (a list, a mode), else `small` in quick mode, else `full`. */
export function textSetting(name: string, full: string, small: string): string {
  const given = process.env[name];
  return given === undefined ? quick(full, small) : given;
}
