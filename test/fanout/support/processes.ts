// Processes as the operating system sees them (Linux /proc), for the fan-out lifecycle tests.
import { readdirSync, readFileSync } from 'node:fs';

/** The direct children of `pid`. */
export function childrenOf(pid: number): number[] {
  const out: number[] = [];
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const task of tasks) {
    try {
      for (const p of readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/)) if (p !== '') out.push(Number(p));
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}

/** Whether a process with this id exists (a zombie not yet reaped counts as gone). */
export function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Waits until `done()` holds, polling; fails naming `what` after `ms`. */
export async function waitUntil(what: string, done: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!(await done())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
