// Suites that drive a program npm does not install (Debian's chromium, haproxy, python3-websockets).
// Where one is missing the suite skips with the reason printed, as the PostgreSQL suites do
// (postgres.ts), so `npm install` then `npm test` passes on a fresh machine; in CI, which installs them
// (.ci/run exports REQUIRE_TOOLS=1, and CI runs it with CI=true), a missing program fails the suite.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** True where a missing tool is a failure, not a reason to skip. */
export function toolsRequired(): boolean {
  return process.env['REQUIRE_TOOLS'] === '1' || process.env['CI'] === 'true';
}

/**
 * With why something a test needs is missing (null: nothing is): nothing; or, where it is `required`,
 * a failure that says why (`because`); or else a skip with the reason printed.
 */
export function skipOrFail(ctx: Mocha.Context, missing: string | null, required: boolean, because: string): void {
  if (missing === null) return;
  if (required) throw new Error(`${missing} (${because})`);
  console.warn(`      skipped: ${missing}`);
  ctx.skip();
}

/** Call in a before() hook with why the tool cannot be used (null: it can): skips, or fails in CI. */
export function requireTool(ctx: Mocha.Context, missing: string | null): void {
  skipOrFail(ctx, missing, toolsRequired(), 'REQUIRE_TOOLS=1 or CI=true: this suite must run; .ci/run installs it');
}

/** Debian's Python, the one that sees Debian's python3-websockets (a pyenv or venv python3 may not). */
export const DEBIAN_PYTHON = '/usr/bin/python3';

/** Why the Python client's suite cannot run here, or null when it can. */
export function pythonWebsocketsMissing(): string | null {
  if (!existsSync(DEBIAN_PYTHON)) return `${DEBIAN_PYTHON} is missing (apt-get install python3 python3-websockets)`;
  const probe = spawnSync(DEBIAN_PYTHON, ['-c', 'import websockets'], { encoding: 'utf8', timeout: 10_000 });
  if (probe.status === 0) return null;
  const why = (probe.stderr ?? '').trim().split('\n').pop() ?? `exit ${String(probe.status)}`;
  return `${DEBIAN_PYTHON} cannot import websockets: ${why} (apt-get install python3-websockets)`;
}
